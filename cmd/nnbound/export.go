package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
)

// exportFlags are the flags of nnbound export.
type exportFlags struct {
	model    modelFlags
	input    inputFlags
	cert     certFlags
	pair     pairFlags
	fracBits int
	format   string
	out      string
	json     bool
}

func newExportCmd() *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export A [B] --format sdpa|cbf -o FILE",
		Short: "Write the certificate SDP for other solvers",
		Long: `Export writes the SDP that nnbound solves first when certifying a bound (the
root SDP over the whole input box, before any splitting) for other solvers:

    sdpa   the SDPA sparse format (.dat-s), for CSDP, SDPA, DSDP and
           "nnbound solve"
    cbf    the Conic Benchmark Format (.cbf, version 3), for MOSEK

With two models it is the SDP of "nnbound compare A B"; with one model and
--frac-bits FB, that of A against its copy quantised to FB fractional bits
(fed the input quantised likewise unless --pairing says otherwise). The
box, QC-set and weight flags mean what they mean for compare.

The gammas are the first variables of the SDP, in the order gamma,
gamma_x1, gamma_x2, gamma_x (gamma_x2 and gamma_x are left out when
x2 = x1, as the SDP builder lays them out); the
command prints which is which, and the file's header comment says it too.
For CSDP they are the first entries of y (the first line of its solution
file); for SDPA, the first entries of xVec; for MOSEK, the first scalar
variables x. A solution read back this way has not been through nnbound's
soundness check: only "nnbound compare" certifies a bound.`,
		Example: `  nnbound export a.onnx b.onnx --format sdpa -o problem.dat-s
  nnbound export model.onnx --frac-bits 4 -o problem.cbf
  nnbound export a.json b.json --qc paper --weights unit -o - | csdp /dev/stdin out.sol`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usagef("export takes one model (with --frac-bits) or two, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd, args, &f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.format, "format", "", "file format: sdpa or cbf (default: from the extension of -o, .dat-s or .cbf)")
	fs.StringVarP(&f.out, "save", "o", "", "write the SDP to `FILE` (\"-\" for stdout)")
	// --output was this flag's name; in compare and verify it is an output
	// index. Scripts that use it still work, with a note (runExport).
	fs.StringVar(&f.out, "output", "", "")
	fs.MarkHidden("output")
	fs.IntVar(&f.fracBits, "frac-bits", 0, "with one model: compare it with its copy quantised to `FB` fractional bits")
	fs.BoolVar(&f.json, "json", false, "print the summary as one JSON object (on stderr with -o -)")
	f.model.register(fs)
	f.model.chainOnly = "export writes the SDP of the paper, whose quadratic constraints are built layer by layer for chains of layers: " +
		"compare A B (or quantise A --frac-bits FB --certify) certifies graphs by bound propagation with input splitting"
	f.input.register(fs)
	f.cert.register(fs)
	f.pair.register(cmd, f.cert.opts)
	for _, name := range []string{"samples", "seed", "max-pieces", "timeout", "verbose"} {
		fs.MarkHidden(name) // export writes the root SDP: no search, no splitting, no solve
	}
	return cmd
}

// exportFormat returns the format named by --format, or by the extension
// of the output file.
func exportFormat(format, out string) (certify.ExportFormat, error) {
	if format == "" {
		if f, ok := certify.ExportFormatOf(out); ok {
			return f, nil
		}
		return 0, usagef("--format is missing and -o %q does not say (want --format sdpa or cbf, or a .dat-s or .cbf file)", out)
	}
	f, err := certify.ParseExportFormat(format)
	if err != nil {
		return 0, usagef("--format %q: want sdpa or cbf", format)
	}
	return f, nil
}

// runExport checks the flags, builds the root SDP and writes it.
func runExport(cmd *cobra.Command, args []string, f *exportFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if cmd.Flags().Changed("output") {
		fmt.Fprintln(stderr, "note: export's --output is now -o or --save FILE (in compare and verify, --output K is an output index)")
	}
	if f.out == "" {
		return usagef("-o FILE is missing: where to write the SDP (\"-\" for stdout)")
	}
	format, err := exportFormat(f.format, f.out)
	if err != nil {
		return err
	}
	if f.out != "-" {
		if err := checkOutDir("-o", f.out); err != nil {
			return err
		}
	}
	switch {
	case len(args) == 1 && !cmd.Flags().Changed("frac-bits"):
		return usagef("export with one model needs --frac-bits FB (the SDP compares it with its quantised copy)")
	case len(args) == 2 && cmd.Flags().Changed("frac-bits"):
		return usagef("--frac-bits goes with one model; with two, export compares them as they are")
	case len(args) == 1:
		if err := checkFracBits(f.fracBits); err != nil {
			return err
		}
	}
	if err := f.input.check(); err != nil {
		return err
	}
	opts, err := f.cert.options(stderr)
	if err != nil {
		return err
	}
	if len(args) == 1 && !cmd.Flags().Changed("pairing") {
		f.pair.pairing = "quantised"
		if !cmd.Flags().Changed("input-frac-bits") {
			f.pair.fracBits = f.fracBits
		}
	}
	if err := f.pair.apply(&opts); err != nil {
		return err
	}

	f1, f2, what, err := f.networks(args, opts.Quant.Rounding)
	if err != nil {
		return err
	}
	if err := copyWidth(&opts, f2.Graph(), args[len(args)-1], stderr); err != nil {
		return err
	}
	box, err := f.input.boxNoted(f1.InputSize(), stderr)
	if err != nil {
		return err
	}
	p, err := opts.Problem(f1, f2, box)
	if err != nil {
		return err
	}
	comments := experiment.ExportComments(what, box, opts, p, format)
	write := func(w io.Writer) error { return p.Write(w, format, comments) }
	summary := stdout
	if f.out == "-" {
		if err := write(stdout); err != nil {
			return err
		}
		summary = stderr
	} else if err := atomicfile.Write(f.out, write); err != nil {
		return err
	}
	where := f.out
	if where == "-" {
		where = "stdout"
	}
	rec := experiment.NewExportRecord(where, what, box, opts, p, format)
	if f.json {
		return report.WriteJSON(summary, rec)
	}
	return rec.WriteText(summary)
}

// networks loads the networks the SDP compares, and says what they are:
// the two models given, or the one model and its copy quantised to
// --frac-bits with rounding.
func (f *exportFlags) networks(args []string, rounding quantise.Rounding) (f1, f2 *nn.Network, what string, err error) {
	a, err := f.model.load(args[0])
	if err != nil {
		return nil, nil, "", err
	}
	if len(args) == 2 {
		b, err := f.model.load(args[1])
		if err != nil {
			return nil, nil, "", err
		}
		if err := nn.CheckComparable(args[0], a.Net, args[1], b.Net); err != nil {
			return nil, nil, "", err
		}
		return a.Net, b.Net, fmt.Sprintf("%s against %s", args[0], args[1]), nil
	}
	q := quantise.Format{FracBits: f.fracBits, Rounding: rounding}
	f2, err = a.Info.Transform(experiment.PruneLevel{}.Compress(q))
	if err != nil {
		return nil, nil, "", err
	}
	return a.Net, f2, fmt.Sprintf("%s against its copy quantised to %d fractional bits", args[0], f.fracBits), nil
}
