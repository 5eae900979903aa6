package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
)

// modelFlags are the flags of every command that reads a model:
//
//	--core    read an NNet file's normalised core network (x_norm -> y_norm,
//	          as verification benchmarks use it) instead of the raw-units one
//
// A command embeds a modelFlags, calls register on its flag set and load
// for each model path.
type modelFlags struct {
	core bool
}

// register adds the flags to fs.
func (f *modelFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.core, "core", false, "read an NNet file's normalised core network instead of the raw-units one (clipping and normalisation built in)")
}

// model is a loaded model file.
type model struct {
	Net  *nn.Network
	Info *modelfile.Info
}

// load reads the model at path (errors are not usage errors: the command
// line was fine, the file is not).
func (f *modelFlags) load(path string) (*model, error) {
	net, info, err := modelfile.Load(path, modelfile.Options{Core: f.core})
	if err != nil {
		return nil, err
	}
	return &model{Net: net, Info: info}, nil
}

// describe returns "path (format, what)" for the model.
func (m *model) describe() string {
	what := ""
	if m.Info.Format == modelfile.NNet {
		what = ", raw units"
		if m.Info.Core == m.Net {
			what = ", normalised core"
		}
	}
	return fmt.Sprintf("%s (%v%s)", m.Info.Path, m.Info.Format, what)
}

// transform applies a compression to the model's core network and rebuilds
// the format's processing around it (see modelfile.Info.Transform), so that
// "quantise" and "prune" compress only the network's own parameters.
func (m *model) transform(f func(*nn.Network) (*nn.Network, error)) (*nn.Network, error) {
	out, err := m.Info.Transform(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Info.Path, err)
	}
	return out, nil
}

// sizes formats layer sizes as "5-50-50-5".
func sizes(net *nn.Network) string {
	s := net.Sizes()
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, "-")
}

// compressed is the compressed copy of a model.
type compressed struct {
	Net  *nn.Network // the network to save (the model's processing included)
	Core *nn.Network // the compressed core network
	// Diff compares Core with the model's core; SameShape is false when
	// the compression changed the shape (pruning with --remove).
	Diff      nn.Diff
	SameShape bool
}

// compress applies f to the model's core network (see transform) and
// compares the result with the original core.
func (m *model) compress(f func(*nn.Network) (*nn.Network, error)) (*compressed, error) {
	c := &compressed{}
	net, err := m.transform(func(core *nn.Network) (*nn.Network, error) {
		out, err := f(core)
		c.Core = out
		return out, err
	})
	if err != nil {
		return nil, err
	}
	c.Net = net
	if d, err := nn.ParamDiff(m.Info.Core, c.Core); err == nil {
		c.Diff, c.SameShape = d, true
	}
	return c, nil
}

// checkSavePath reports a --save path with an extension nnbound cannot
// write, as a usage error.
func checkSavePath(path string) error {
	if path == "" {
		return usagef("--save OUT is missing: where to write the network (.onnx or .json)")
	}
	switch modelfile.FormatOf(path) {
	case modelfile.ONNX, modelfile.JSON:
		return nil
	}
	return usagef("--save %q: want a .onnx or .json file name", path)
}

// writeCompressed prints what a compression changed and where it was saved.
func writeCompressed(w io.Writer, m *model, what string, c *compressed, saved string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "model:\t%s\n", m.describe())
	fmt.Fprintf(tw, "compression:\t%s\n", what)
	if c.SameShape {
		d := c.Diff
		fmt.Fprintf(tw, "changed:\t%d of %d parameters (%d set to zero)\n", d.Changed, d.Params, d.Zeroed)
		fmt.Fprintf(tw, "largest change:\t%s\n", strconv.FormatFloat(d.MaxAbs, 'g', -1, 64))
		fmt.Fprintf(tw, "total change:\t%s (sum of |changes|)\n", strconv.FormatFloat(d.SumAbs, 'g', -1, 64))
	} else {
		fmt.Fprintf(tw, "sizes:\t%s -> %s\n", sizes(m.Info.Core), sizes(c.Core))
		fmt.Fprintf(tw, "parameters:\t%d -> %d\n", m.Info.Core.NumParams(), c.Core.NumParams())
	}
	if saved != "" {
		fmt.Fprintf(tw, "saved:\t%s\n", saved)
	}
	return tw.Flush()
}

// compressAndSave loads the model at path, applies the compression f to its
// core network and saves the result to save (checked first, so a bad name
// fails before any work). It returns the model and its compressed copy, for
// the command to print (or certify).
func compressAndSave(mf *modelFlags, path, save string, f func(*nn.Network) (*nn.Network, error)) (*model, *compressed, error) {
	if err := checkSavePath(save); err != nil {
		return nil, nil, err
	}
	m, err := mf.load(path)
	if err != nil {
		return nil, nil, err
	}
	c, err := m.compress(f)
	if err != nil {
		return nil, nil, err
	}
	if err := modelfile.Save(save, c.Net); err != nil {
		return nil, nil, err
	}
	return m, c, nil
}
