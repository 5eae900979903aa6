// Package modelfile loads and saves networks in whichever file format they
// come in: ONNX (.onnx), NNet (.nnet) or nnbound's JSON (.json). The format
// is taken from the extension; a file without a known extension is
// recognised by its content. Any of them may be gzip-compressed (a.onnx.gz,
// or any file starting with the gzip magic bytes); Load reads A.onnx.gz
// for A.onnx when A.onnx is missing or differs from it (internal/gzfile).
//
// Some formats build pre- and post-processing into the network they return
// (an NNet file's input clipping and normalisation). Info.Core is the
// network without it, and Info.Transform applies a compression (quantise,
// prune) to the core and builds the processing back around the result, so
// that only the network's own weights are compressed.
package modelfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nnbound/nnbound/internal/gzfile"
	"github.com/nnbound/nnbound/nn"
)

// ErrUnknownFormat reports a file whose format is neither known from its
// extension nor recognisable from its content.
var ErrUnknownFormat = errors.New("unknown model format")

// ErrNotModel reports a path that cannot hold a model: a directory, an
// empty file, a device, a file larger than MaxFileSize.
var ErrNotModel = errors.New("not a model file")

// MaxFileSize is the largest model file Load reads (1 GiB).
const MaxFileSize = 1 << 30

// Format is a model file format.
type Format int

// The formats.
const (
	Unknown Format = iota
	ONNX
	NNet
	JSON
)

var formatNames = [...]string{"unknown", "ONNX", "NNet", "JSON"}

// String returns the format's name.
func (f Format) String() string {
	if f < 0 || int(f) >= len(formatNames) {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// FormatOf returns the format named by the extension of path (case does
// not matter; a final .gz is skipped: a.onnx.gz is ONNX), or Unknown.
func FormatOf(path string) Format {
	path = strings.TrimSuffix(strings.ToLower(path), ".gz")
	switch filepath.Ext(path) {
	case ".onnx":
		return ONNX
	case ".nnet":
		return NNet
	case ".json":
		return JSON
	}
	return Unknown
}

// Options says how to load a model.
type Options struct {
	// Core loads an NNet file's normalised core network instead of the
	// raw-units one (see nn/nnet). It changes nothing for other formats.
	Core bool
}

// Info describes a loaded model file.
type Info struct {
	Path    string
	Format  Format
	Size    int64 // bytes of the file read (compressed, if it was)
	Sniffed bool  // the format was recognised from the content, not the extension
	// Summary holds the format's details as "key: value" lines.
	Summary string
	// Core is the network without the processing the format builds in;
	// it is the loaded network itself when there is none.
	Core *nn.Network
	// wrap rebuilds the processing around a core network; nil for none.
	wrap func(*nn.Network) (*nn.Network, error)
}

// Name returns "path (format, what)" for the model file i whose loaded
// network is net: what says, for NNet, whether net is the raw-units
// network or the normalised core (Options.Core).
func (i *Info) Name(net *nn.Network) string {
	what := ""
	if i.Format == NNet {
		what = ", raw units"
		if i.Core == net {
			what = ", normalised core"
		}
	}
	return fmt.Sprintf("%s (%v%s)", i.Path, i.Format, what)
}

// Transform returns f applied to the core network, with the format's
// processing (if any) built back around the result. With Options.Core, or
// for formats without processing, it is simply f(Core). Errors name the
// file ("path: ..."), wrapping f's.
func (i *Info) Transform(f func(core *nn.Network) (*nn.Network, error)) (*nn.Network, error) {
	out, err := f(i.Core)
	if err == nil && i.wrap != nil {
		out, err = i.wrap(out)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", i.Path, err)
	}
	return out, nil
}

// Rebuild returns core, a network of the core's inputs and outputs (a
// copy of i.Core), with the format's processing built around it as
// Transform builds it.
func (i *Info) Rebuild(core *nn.Network) (*nn.Network, error) {
	return i.Transform(func(*nn.Network) (*nn.Network, error) { return core, nil })
}

// Load reads the model at path (or path.gz, see the package
// documentation); Info.Path is the file read. Errors name the file; they wrap
// ErrNotModel for directories and empty files and ErrUnknownFormat when
// the format cannot be told, and otherwise come from the format's reader.
func Load(path string, opts Options) (*nn.Network, *Info, error) {
	data, info, err := read(path)
	if err != nil {
		return nil, nil, err
	}
	return decode(data, info, opts)
}

// read reads the model file at path and tells its format.
func read(path string) ([]byte, *Info, error) {
	data, path, size, err := readFile(path)
	if err != nil {
		return nil, nil, err
	}
	format, sniffed := FormatOf(path), false
	if format == Unknown {
		if format = sniff(data); format == Unknown {
			return nil, nil, fmt.Errorf("modelfile: cannot tell the format of %s (want .onnx, .nnet or .json): %w", path, ErrUnknownFormat)
		}
		sniffed = true
	}
	return data, &Info{Path: path, Format: format, Size: size, Sniffed: sniffed}, nil
}

// decode translates the file's data into a network.
func decode(data []byte, info *Info, opts Options) (*nn.Network, *Info, error) {
	net, err := decoders[info.Format](info.Path, data, opts, info)
	if err != nil {
		return nil, nil, err
	}
	if info.Core == nil {
		info.Core = net
	}
	return net, info, nil
}

// decoders read each format, filling in the format's parts of info. An
// array rather than a map: static data, no work at every start.
var decoders = [...]func(path string, data []byte, opts Options, info *Info) (*nn.Network, error){
	ONNX: decodeONNX,
	NNet: decodeNNet,
	JSON: decodeJSON,
}

// readFile reads a regular, non-empty file of at most MaxFileSize bytes,
// decompressed if it is gzipped (at most MaxFileSize bytes then too; see
// internal/gzfile for when path.gz is read instead of path). It returns
// the content, the path read and the size of the file read.
func readFile(path string) ([]byte, string, int64, error) {
	f, err := gzfile.Open(path, MaxFileSize)
	var notRegular *gzfile.NotRegularError
	switch {
	case errors.As(err, &notRegular):
		return nil, "", 0, fmt.Errorf("modelfile: %w: %w", err, ErrNotModel)
	case err != nil:
		return nil, "", 0, fmt.Errorf("modelfile: %w", err)
	}
	defer f.Close()
	path = f.Name
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", 0, fmt.Errorf("modelfile: %w", err)
	}
	if st.Size() > MaxFileSize {
		return nil, "", 0, fmt.Errorf("modelfile: %s has %d bytes, more than the %d a model may have: %w", path, st.Size(), MaxFileSize, ErrNotModel)
	}
	data, err := io.ReadAll(f)
	switch {
	case errors.Is(err, gzfile.ErrTooLarge):
		return nil, "", 0, fmt.Errorf("modelfile: %w: %w", err, ErrNotModel)
	case err != nil:
		return nil, "", 0, fmt.Errorf("modelfile: %w", err)
	case len(data) == 0:
		return nil, "", 0, fmt.Errorf("modelfile: %s is empty: %w", path, ErrNotModel)
	}
	return data, path, st.Size(), nil
}
