package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// sweepFlags are the flags of nnbound sweep.
type sweepFlags struct {
	model    modelFlags
	input    inputFlags
	cert     certFlags
	fracBits string
	rounding string
	// --scheme int8: affine int8 (quantise.Int8) at each of --bits
	scheme string
	bits   string
	int8   quantise.Int8Options
	fs     *pflag.FlagSet // to tell flags given from defaults
	// actFracBits rounds every hidden layer's output (fixed point, 0: no)
	actFracBits int
	pairing     string
	neurons     string
	sparsity    string
	target      float64
	plot        string
	json        bool
	jobs        int
	saveBest    string
	arith       arithFlag
}

func newSweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep MODEL [--frac-bits 1:12] [--target-error E]",
		Short: "Certified error bound for each fractional bit width",
		Long: `Sweep quantises MODEL to each number of fractional bits FB in --frac-bits
(weights and biases, rounding toward zero by default) and certifies the
largest output error of each copy over the input box, next to the largest
error actually found. The copy is fed the same input (--pairing same, as
on every command) or, with --pairing quantised (the paper's setting), the
input quantised to the copy's FB. With --neurons or --sparsity it prunes first, one series per level.

With --scheme int8 it makes the affine int8 copy instead (quantise
--scheme int8: integer weights per tensor or, with --per-channel, per
channel, int32 biases, every activation re-quantised, ranges calibrated on
the box by bound propagation) at each width of --bits (default 4:8), fed
the same input, and certifies it by bound propagation with input splitting.

With --act-frac-bits N the fixed-point copies also round every hidden
layer's output to N fractional bits (to nearest), as fixed-point
arithmetic does; they are then certified by bound propagation with input
splitting, the SDP not modelling the rounding.

A computation graph (residual Add, Concat, MaxPool, ...) is swept the same
way: each copy made as quantise and prune make graph copies, and certified
as quantise --certify certifies one, by bound propagation with input
splitting (the SDP is for chains). --arith float32 makes every bound also
cover float32 evaluation (chains are then certified the same way). Int8
copies (--scheme int8) and --act-frac-bits are made of chains only.

With --target-error E it reports, for each pruning level, the smallest FB
whose certified bound is at most E: a bit width you can ship knowing the
error never exceeds E anywhere in the box; --save-best OUT saves that copy.

It prints a table (or JSON with --json) and draws the bound and the error
against FB on a log scale (--plot; default MODEL-sweep.png in the current
directory, none with --json unless --plot is given).

Exit status: 0 when the sweep ran (and, with --target-error, some FB meets
the target), 1 when no FB meets the target or on an error, 2 usage error.`,
		Example: `  nnbound sweep model.onnx
  nnbound sweep model.onnx --frac-bits 4:10 --target-error 0.01
  nnbound sweep model.onnx --neurons 0,4,8 --frac-bits 2,4,6,8 --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("plot") && !f.json {
				base := strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0]))
				f.plot = base + "-sweep.png"
			}
			return runSweep(cmd, args[0], &f)
		},
	}
	fs := cmd.Flags()
	f.fs = fs
	fs.StringVar(&f.fracBits, "frac-bits", "1:12", "fractional bit widths to try: a range `A:B` or a list A,B,...")
	fs.StringVar(&f.scheme, "scheme", "fixed", "fixed (fixed point, --frac-bits) or int8 (affine int8 at each of --bits)")
	fs.StringVar(&f.bits, "bits", "4:8", "--scheme int8: widths to try, a range `A:B` or a list A,B,... (2 to 8)")
	fs.BoolVar(&f.int8.PerChannel, "per-channel", false, "--scheme int8: one weight scale per output channel")
	fs.BoolVar(&f.int8.Symmetric, "symmetric", false, "--scheme int8: symmetric activations (zero point 0)")
	fs.IntVar(&f.actFracBits, "act-frac-bits", 0, "fixed point: also round every hidden layer's output to `N` fractional bits (nearest; 0: exact activations, the paper's mode)")
	fs.StringVar(&f.rounding, "rounding", quantise.DefaultOptions().Weights.Rounding.String(), "rounding of weights, biases and input: trunc, nearest or floor")
	fs.StringVar(&f.pairing, "pairing", "same", "input of the quantised copy: same (x2 = x1) or quantised (x2 = q(x1) with the copy's FB)")
	fs.StringVar(&f.neurons, "neurons", "", "also prune these numbers of hidden neurons first, `K1,K2,...` (one series each)")
	fs.StringVar(&f.sparsity, "sparsity", "", "also prune these fractions of the weights first, `S1,S2,...` (one series each)")
	fs.Float64Var(&f.target, "target-error", 0, "report the smallest FB whose certified bound is at most `E`")
	fs.StringVar(&f.plot, "plot", "", "write the figure to `FILE` (.png or .svg; \"\" for none) (default MODEL-sweep.png; none with --json)")
	fs.BoolVar(&f.json, "json", false, "print the results as JSON")
	fs.StringVar(&f.saveBest, "save-best", "", "with --target-error: save the copy at the smallest FB meeting it to `OUT` (.onnx or .json)")
	fs.IntVar(&f.jobs, "jobs", experiment.DefaultJobs(), "certify this many bit widths at once")
	f.model.register(fs)
	f.input.register(fs)
	f.cert.register(fs)
	f.arith.register(fs)
	return cmd
}

// sweepPlan is what a sweep certifies, from its validated flags.
type sweepPlan struct {
	widths   []int
	scheme   experiment.CopyScheme
	levels   []experiment.PruneLevel
	rounding quantise.Rounding
	opts     certjob.Job // Quant is set per bit width
	jobs     int
}

// plan validates the flags that do not depend on the model; bad ones are
// usage errors.
func (f *sweepFlags) plan(stderr io.Writer) (*sweepPlan, error) {
	widths, err := parseWidths("frac-bits", f.fracBits)
	if err != nil {
		return nil, err
	}
	switch f.scheme {
	case "int8":
		if widths, err = int8Widths(f.fs, f.bits, "frac-bits", "rounding", "pairing", "act-frac-bits"); err != nil {
			return nil, err
		}
		f.pairing = "same"
	case "fixed":
	default:
		return nil, usagef("--scheme %q: want fixed or int8", f.scheme)
	}
	levels, err := sweepLevels(f)
	if err != nil {
		return nil, err
	}
	rounding, err := quantise.ParseRounding(f.rounding)
	if err != nil {
		return nil, usagef("--rounding %q: want trunc, nearest or floor", f.rounding)
	}
	if f.pairing != "quantised" && f.pairing != "same" {
		return nil, usagef("--pairing %q: want quantised or same", f.pairing)
	}
	if f.target < 0 || math.IsNaN(f.target) || math.IsInf(f.target, 0) {
		return nil, usagef("--target-error %v: want a positive number", f.target)
	}
	if f.jobs < 1 {
		return nil, usagef("--jobs %d: want 1 or more", f.jobs)
	}
	if f.saveBest != "" && (f.target == 0 || len(levels) > 1) {
		return nil, usagef("--save-best needs --target-error and at most one pruning level")
	}
	if err := checkSavePath("--save-best", f.saveBest); err != nil {
		return nil, err
	}
	if f.plot != "" {
		if err := checkPlot(f.plot); err != nil {
			return nil, err
		}
	}
	if err := f.input.check(); err != nil {
		return nil, err
	}
	opts, err := f.cert.options(stderr)
	if err != nil {
		return nil, err
	}
	opts.Pairing = spec.SameInput
	if f.pairing == "quantised" {
		opts.Pairing = spec.QuantisedInput
	}
	if err := f.arith.apply(&opts); err != nil {
		return nil, err
	}
	jobs := f.cert.jobs(f.jobs)
	if f.actFracBits < 0 || f.actFracBits > quantise.MaxFracBits {
		return nil, usagef("--act-frac-bits %d: want 0 to %d", f.actFracBits, quantise.MaxFracBits)
	}
	return &sweepPlan{widths: widths, scheme: experiment.CopyScheme{ActFracBits: f.actFracBits, Int8: f.scheme == "int8", Int8Opts: f.int8}, levels: levels, rounding: rounding, opts: opts, jobs: jobs}, nil
}

// runSweep certifies the model at path at every bit width and pruning
// level and prints the table (or JSON) and the figure.
func runSweep(cmd *cobra.Command, path string, f *sweepFlags) error {
	stderr := cmd.ErrOrStderr()
	p, err := f.plan(stderr)
	if err != nil {
		return err
	}
	m, err := f.model.loadGraph(path)
	if err != nil {
		return err
	}
	if m.Net == nil || p.opts.Arith == certify.ArithFloat32 {
		return runSweepGraph(cmd, path, f, p, m)
	}
	box, err := f.input.boxNoted(m.Net.InputSize(), stderr)
	if err != nil {
		return err
	}
	rows, err := p.certify(cmd.Context(), m, box, stderr)
	return f.finish(cmd, path, p, sweepRun{box: box, rows: rows, err: err,
		network: m.heading(),
		saveBest: func(j *experiment.SweepResult) error {
			return j.SaveBest(f.saveBest, p.rounding, p.saveCopy(m, box, f.saveBest, stderr))
		}})
}

// sweepRun is what a sweep of a chain or of a graph certified, for
// finish to report.
type sweepRun struct {
	box  spec.Box
	rows []experiment.SweepRow
	err  error // of the run, ignored when a signal stopped it
	// network describes the model for the text heading.
	network string
	// saveBest saves the copy at the smallest width meeting the target.
	saveBest func(*experiment.SweepResult) error
}

// finish reports the run r of the sweep of the model at path: the rows
// finished before a signal, the copy of --save-best, the figure, and the
// table or JSON; it returns the exit error.
func (f *sweepFlags) finish(cmd *cobra.Command, path string, p *sweepPlan, r sweepRun) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	rows := r.rows
	cancelled := cmd.Context().Err() != nil
	if r.err != nil && !cancelled {
		return r.err
	}
	total := len(rows)
	if cancelled { // keep the rows finished before the signal; no figure of them
		rows, f.plot = experiment.FinishedRows(rows), ""
	}

	j := experiment.NewSweepResult(path, r.box, f.pairing, p.opts.QC.String(), rows, p.levels, f.target)
	if cancelled {
		j.Status = fmt.Sprintf("cancelled after %d of %d rows", len(rows), total)
	}
	met := j.Met()
	// --save-best goes with --target-error (plan)
	if f.saveBest != "" && met && !cancelled {
		if err := r.saveBest(&j); err != nil {
			return err
		}
	}
	if f.plot != "" {
		if err := j.SaveFigure(f.plot, p.levels, f.target); errors.Is(err, report.ErrData) {
			fmt.Fprintf(stderr, "nnbound: no figure: nothing positive to draw on a log scale\n")
		} else if err != nil {
			return err
		}
	}
	if f.json {
		if hideTimes {
			j.HideTimes()
		}
		if err := report.WriteJSON(stdout, j); err != nil {
			return err
		}
	} else if err := j.WriteText(stdout, experiment.SweepText{Network: r.network, Box: r.box,
		Int8: f.scheme == "int8", SameInput: f.pairing == "same", Levels: p.levels, Target: f.target, HideTimes: hideTimes}); err != nil {
		return err
	}
	switch {
	case cancelled:
		return errCancelled
	case !met:
		return errNotCertified
	}
	return nil
}

// certify certifies m against each of its compressed copies, every
// pruning level at every bit width, showing progress on stderr.
func (p *sweepPlan) certify(ctx context.Context, m *model, box spec.Box, stderr io.Writer) ([]experiment.SweepRow, error) {
	s := experiment.WidthSweep{Widths: p.widths, Levels: p.levels, Rounding: p.rounding, Opts: p.opts, Jobs: p.jobs}
	return s.Run(ctx, m.Net, box, p.scheme.ChainCopies(m.Info, box), stderr)
}

// saveCopy returns the function that saves to path the copy of the chain
// of m at the sweep's only pruning level and a width
// (experiment.CopyScheme.SavedCopy), with a note on stderr when it loses
// the convolutions of m's graph (saveCopy, as quantise saves).
func (p *sweepPlan) saveCopy(m *model, box spec.Box, path string, stderr io.Writer) func(quantise.Format) error {
	return func(q quantise.Format) error {
		c, lost, err := p.scheme.SavedCopy(m.Info, m.Graph, box, p.levels[0], q)
		if err != nil {
			return err
		}
		return saveCopy(m, c, path, lost, stderr)
	}
}
