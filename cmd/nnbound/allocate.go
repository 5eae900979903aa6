package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/agree"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// allocateFlags are the flags of nnbound allocate.
type allocateFlags struct {
	model    modelFlags
	input    inputFlags
	cert     certFlags
	fracBits string
	rounding string
	target   float64
	save     string
	report   string
	json     bool
	jobs     int
	starts   int
	// scheme is fixed or int8; bits and int8 are --scheme int8's weight
	// widths and options.
	scheme string
	bits   string
	int8   quantise.Int8Options
	// agreement holds --target-agreement and its test set.
	agreement agreementFlags
}

func newAllocateCmd() *cobra.Command {
	var f allocateFlags
	cmd := &cobra.Command{
		Use:   "allocate MODEL (--target-error E | --target-agreement A --data TEST --radius R) [--save OUT]",
		Short: "Fewest weight bits per layer with a certified error bound or top-1 agreement rate",
		Long: `Allocate chooses the fractional bits of each layer of a fixed-point copy of
MODEL (weights and biases, rounding toward zero by default) so that the
copy spends the fewest weight bits while its certified output error over
the input box stays at most --target-error E. The copy gets the same
input as MODEL (x2 = x1).

It starts as sweep --target-error would: the smallest single FB of
--frac-bits whose certified bound is at most E. Then, greedily, it lowers
one layer's FB at a time: each round certifies every layer one bit lower
and keeps the candidate that saves the most weight bits per unit of bound
increase among those whose certified bound is at most E; a layer whose
candidate misses E stays where it is. It descends so from the smallest
FB and from the --starts - 1 widths above it (more slack to spread over
the layers) and keeps the allocation with the fewest weight bits. Every
allocation it reports is certified.

The weight bits of a layer are (weights + biases) x (1 + IB + FB): a sign
bit, IB integer bits (the fewest holding the layer's largest quantised
value) and FB fractional bits each. It prints the single widths tried,
the per-layer table with its total beside the single width's, and the
certificate of the chosen copy (JSON with --json); --save OUT saves that
copy. --report DIR also writes DIR/index.html: the tables, a figure of the
weight bits per layer, the command and the versions (plain HTML and SVG).

With --target-agreement A instead, the target is top-1 agreement: a
copy is accepted when, on at least the fraction A of the samples of
--data, MODEL and the copy are certified to pick the same class on the
whole L-inf ball of radius --radius about the sample (as "nnbound agree"
decides it, with its limit of boxes per ball but no time limit, so that
the choice does not depend on the machine's speed; a disagreement found
or an unknown ball counts against). The search is the same greedy descent,
from the smallest single FB meeting A, keeping the candidate that saves
the most weight bits; each copy's agree log goes to --out/fb-A-B-...,
so an interrupted run resumes.

With --scheme int8, the copies are affine int8 copies instead, as sweep
--scheme int8 makes them (calibrated on the input box, or with
--target-agreement on the samples of --data; weights per tensor or, with
--per-channel, per output channel; int32 biases), whose layers each have
weights of one of the --bits widths (int8 or int4 by default) while the
activations stay 8-bit. The search is the same: it starts from the
smallest single width of --bits meeting the target and lowers one layer
at a time to the next width of --bits. A layer's weight bits are then
weights x width + biases x 32. A copy with int4 layers is saved in ONNX
(QDQ) as int8 tensors holding the int4 values.

Exit status: 0 when a copy meets the target, 1 when no FB tried meets it
or on an error, 2 usage error.`,
		Example: `  nnbound allocate model.onnx --target-error 0.05
  nnbound allocate model.onnx --box 0:1 --target-error 0.5 --save model-mixed.onnx
  nnbound allocate digits.onnx --box 0:1 --target-error 20 --scheme int8 --per-channel --save digits-w4w8.onnx
  nnbound allocate digits.onnx --target-agreement 0.95 --data test.json --radius 2/255`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runAllocate(cmd, args[0], &f) },
	}
	fs := cmd.Flags()
	d := experiment.DefaultAllocation()
	fs.StringVar(&f.fracBits, "frac-bits", "1:16", "single fractional bit widths to start from: a range `A:B` or a list A,B,... (tried ascending)")
	fs.StringVar(&f.rounding, "rounding", d.Rounding.String(), "rounding of weights and biases: trunc, nearest or floor")
	fs.Float64Var(&f.target, "target-error", 0, "the largest certified bound `E` accepted (required)")
	fs.StringVar(&f.save, "save", "", "save the chosen copy to `OUT` (.onnx or .json)")
	fs.StringVar(&f.report, "report", "", "also write the allocation as a web page, `DIR`/index.html (HTML and SVG, no script)")
	fs.BoolVar(&f.json, "json", false, "print the allocation and its certificate as JSON")
	fs.IntVar(&f.starts, "starts", d.Starts, "greedy descents, from the smallest single FB meeting the target and the widths above it")
	fs.IntVar(&f.jobs, "jobs", d.Jobs, "certify this many copies at once")
	fs.StringVar(&f.scheme, "scheme", "fixed", "fixed (fixed point, --frac-bits) or int8 (affine int8 copies, the weights of each layer at one of --bits)")
	fs.StringVar(&f.bits, "bits", "4,8", "--scheme int8: the widths of a layer's weights, a list `A,B,...` or a range A:B (2 to 8)")
	fs.BoolVar(&f.int8.PerChannel, "per-channel", false, "--scheme int8: one weight scale per output channel")
	fs.BoolVar(&f.int8.Symmetric, "symmetric", false, "--scheme int8: symmetric activations (zero point 0)")
	f.int8.Bits = quantise.DefaultInt8Options().Bits
	f.model.register(fs)
	f.model.chainOnly = "allocate chooses a width for each layer of a chain of layers: sweep MODEL certifies graphs at one width for every node"
	f.input.register(fs)
	f.cert.register(fs)
	f.agreement.register(fs)
	return cmd
}

// allocation validates the flags that do not depend on the model; bad
// ones are usage errors.
func (f *allocateFlags) allocation(cmd *cobra.Command) (*experiment.Allocation, error) {
	widths, err := parseWidths("frac-bits", f.fracBits)
	if err != nil {
		return nil, err
	}
	rounding, err := quantise.ParseRounding(f.rounding)
	if err != nil {
		return nil, usagef("--rounding %q: want trunc, nearest or floor", f.rounding)
	}
	if !(f.target > 0) || math.IsInf(f.target, 1) {
		return nil, usagef("--target-error %v: want a positive number", f.target)
	}
	if f.starts < 1 {
		return nil, usagef("--starts %d: want 1 or more", f.starts)
	}
	if f.jobs < 1 {
		return nil, usagef("--jobs %d: want 1 or more", f.jobs)
	}
	if err := errors.Join(checkSavePath("--save", f.save), checkMakeDir("--report", f.report)); err != nil {
		return nil, err
	}
	if err := f.input.check(); err != nil {
		return nil, err
	}
	opts, err := f.cert.options(cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	opts.Pairing = spec.SameInput
	jobs := f.cert.jobs(f.jobs)
	a := &experiment.Allocation{Widths: sortedUnique(widths), Rounding: rounding, Target: f.target, Opts: opts, Jobs: jobs, Starts: f.starts}
	if bits, o, err := f.int8Scheme(cmd); err != nil {
		return nil, err
	} else if o != nil {
		a.Widths, a.Int8 = bits, o
	}
	return a, nil
}

// int8Scheme returns the weight widths (ascending) and options of
// --scheme int8, nil options for --scheme fixed; bad flags are usage
// errors.
func (f *allocateFlags) int8Scheme(cmd *cobra.Command) ([]int, *quantise.Int8Options, error) {
	switch f.scheme {
	case "fixed":
		return nil, nil, nil
	case "int8":
	default:
		return nil, nil, usagef("--scheme %q: want fixed or int8", f.scheme)
	}
	bits, err := int8Widths(cmd.Flags(), f.bits, "frac-bits", "rounding")
	if err != nil {
		return nil, nil, err
	}
	return sortedUnique(bits), &f.int8, nil
}

// runAllocate allocates the layers' widths of the model at path and
// prints the result (and saves the copy).
func runAllocate(cmd *cobra.Command, path string, f *allocateFlags) error {
	if cmd.Flags().Changed("target-agreement") {
		return runAllocateAgreement(cmd, path, f)
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	a, err := f.allocation(cmd)
	if err != nil {
		return err
	}
	m, box, err := f.model.loadOverBox(path, &f.input, stderr)
	if err != nil {
		return err
	}
	r, err := a.Run(cmd.Context(), m.Net, m.Info.Core, m.Info.Rebuild, box, stderr)
	if err != nil {
		return err
	}
	r.Model = path
	if f.save != "" && r.Met() {
		if err := r.Save(f.save); err != nil {
			return err
		}
	}
	t := experiment.AllocationText{Network: m.heading(), Box: box, HideTimes: hideTimes}
	if f.report != "" {
		if err := writeAllocationReport(cmd, path, f.report, r, t); err != nil {
			return err
		}
	}
	if f.json {
		if hideTimes {
			r.HideTimes()
		}
		if err := report.WriteJSON(stdout, r); err != nil {
			return err
		}
	} else {
		if err := r.WriteText(stdout, t); err != nil {
			return err
		}
		if r.Met() {
			fmt.Fprintln(stdout)
			if err := (experiment.CertReport{HideTimes: hideTimes}).Write(stdout, r.Certificate); err != nil {
				return err
			}
		}
	}
	switch {
	case r.Status != "": // a signal: what was certified before it is printed
		return errCancelled
	case !r.Met():
		return errNotCertified
	}
	return nil
}

// sortedUnique returns the widths ascending, without repeats.
func sortedUnique(widths []int) []int {
	out := append([]int(nil), widths...)
	slices.Sort(out)
	return slices.Compact(out)
}

// writeAllocationReport writes the page of allocate --report to dir.
func writeAllocationReport(cmd *cobra.Command, model, dir string, r *experiment.AllocationResult, t experiment.AllocationText) error {
	files, err := agree.Digests([]string{model})
	if err != nil {
		return fmt.Errorf("allocate: --report: %w", err)
	}
	p := provenance(cmd, []string{model}, files)
	return writePage(cmd, dir, func(w io.Writer) error { return r.WriteHTML(w, t, p) })
}
