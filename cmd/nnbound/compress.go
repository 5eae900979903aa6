package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/prune"
)

// compression is a compression of a core network (experiment.Compression)
// as a command's flags chose it.
type compression struct {
	experiment.Compression
	// inputFracBits, if not 0, is the default of --input-frac-bits: the
	// weights' width, so that --pairing quantised means one format.
	inputFracBits int
	// byGraph says that a model with convolutions (or other structured
	// maps) is compressed as its graph even when it is a chain: pruning,
	// since a convolution's weight is shared by every output position and
	// zeroing one entry of the dense matrix its chain carries is not
	// pruning that weight.
	byGraph bool
}

// compressionFlags are the flags choosing a compression: quantiseFlags or
// pruneFlags.
type compressionFlags interface {
	// register adds the flags to fs with the library's defaults.
	register(fs *pflag.FlagSet)
	// compression returns the compression the flags say; bad flags are
	// usage errors.
	compression(fs *pflag.FlagSet) (compression, error)
}

// compressCommand completes cmd into a command that compresses one model,
// as quantise and prune do: it adds the model flags, cf, the certification
// flags of compressCert and --save (help naming the copy by adjective,
// "quantised"), and runs: check the flags, load, compress, save, report,
// and certify under --certify.
func compressCommand(cmd *cobra.Command, cf compressionFlags, adjective string) *cobra.Command {
	var (
		mf   modelFlags
		cc   compressCert
		save string
	)
	cmd.Args = exactArgs(1)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		comp, err := cf.compression(cmd.Flags())
		if err != nil {
			return err
		}
		if comp.inputFracBits > 0 && !cmd.Flags().Changed("input-frac-bits") {
			cc.pair.fracBits = comp.inputFracBits
		}
		if _, err := cc.check(); err != nil {
			return err
		}
		if save == "" && !cc.certify {
			return usagef("--save OUT is missing: where to write the network (.onnx or .json); with --certify it is optional")
		}
		if err := checkSavePath("--save", save); err != nil {
			return err
		}
		gm, err := mf.loadGraph(args[0])
		if err != nil {
			return err
		}
		if comp.byGraph && gm.Net != nil && modelfile.Structured(gm.Graph) {
			gm.Net = nil // its real weights are the graph's kernels
		}
		if gm.Net == nil || (cc.certify && cc.arith.float32()) {
			return compressGraph(cmd, &cc, gm, comp, save)
		}
		m, c, err := compressAndSave(gm, save, comp, cmd.ErrOrStderr(), func(m *model) error {
			if !cc.certify {
				return nil
			}
			_, _, err := cc.input.box(m.Net.InputSize()) // before the copy is saved
			return err
		})
		if err != nil {
			return err
		}
		return cc.run(cmd, m, c, func(w io.Writer) error {
			return comp.Record(m.Info, c, save).WriteText(w, m.describe())
		}, comp.Record(m.Info, c, save))
	}
	fs := cmd.Flags()
	mf.register(fs)
	cf.register(fs)
	cc.register(cmd)
	if qf, ok := cf.(*quantiseFlags); ok {
		qf.input = &cc.input // --scheme int8 calibrates on the box
	}
	fs.StringVar(&save, "save", "", "write the "+adjective+" network to `OUT` (.onnx or .json)")
	return cmd
}

// checkSavePath reports a network path of flag with an extension nnbound
// cannot write, or in a missing directory, as a usage error ("" is none).
func checkSavePath(flag, path string) error {
	if path == "" {
		return nil
	}
	if err := checkOutDir(flag, path); err != nil {
		return err
	}
	switch modelfile.FormatOf(path) {
	case modelfile.ONNX, modelfile.JSON:
		return nil
	}
	return usagef("%s %q: want a .onnx or .json file name", flag, path)
}

// compressAndSave applies the compression comp to the core network of the
// loaded model m and saves the result to save ("" saves nothing; a note
// on stderr when the file cannot keep m's convolutions), after check has
// accepted the model (for flags that depend on it). It returns the model
// and its compressed copy, for the command to print (or certify).
func compressAndSave(m *model, save string, comp compression, stderr io.Writer, check func(*model) error) (*model, *modelfile.Compressed, error) {
	if err := check(m); err != nil {
		return nil, nil, err
	}
	c, lost, err := comp.Chain(m.Info, m.Graph)
	if errors.Is(err, prune.ErrOptions) {
		return nil, nil, usageError{err} // more neurons than the network has
	}
	if err != nil {
		return nil, nil, err
	}
	if save != "" {
		err = saveCopy(m, c, save, lost, stderr)
	}
	return m, c, err
}

// saveCopy saves the copy c of m to save (Compressed.Save, which leaves
// no file behind on an error), with a note on stderr when the file cannot
// keep m's convolutions (lost, from Compressed.KeepStructure). A
// raw-units copy of an NNet file that the format cannot hold while its
// core can (an int8 copy, written in QDQ form with float32 values only,
// after a clipping or normalisation that are not float32 values: they are
// kept exact) is refused saying so and what to do instead.
func saveCopy(m *model, c *modelfile.Compressed, save string, lost bool, stderr io.Writer) error {
	err := c.Save(save)
	if err == nil && lost {
		noteDense(stderr, save, m.Info.Path)
	}
	if errors.Is(err, onnx.ErrNotWritable) && c.Net != c.Core && modelfile.Write(io.Discard, modelfile.FormatOf(save), c.Core) == nil {
		return fmt.Errorf("--save %s: %s's clipping and normalisation are kept exact in the copy and are not float32 values, "+
			"which an int8 ONNX (QDQ) file holds only: --core saves the copy of the normalised core network instead (%w)", save, m.Info.Path, err)
	}
	return err
}

// noteDense notes on stderr that the copy saved to path has dense layers
// where the model at src has convolutions (Compressed.KeepStructure
// could not keep them).
func noteDense(stderr io.Writer, path, src string) {
	fmt.Fprintf(stderr, "note: %s holds the copy as dense layers, not %s's convolutions: "+
		"the same compression made on the convolutions is another function\n", path, src)
}
