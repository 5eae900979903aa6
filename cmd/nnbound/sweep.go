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

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/progress"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
)

// sweepFlags are the flags of nnbound sweep.
type sweepFlags struct {
	model    modelFlags
	input    inputFlags
	cert     certFlags
	fracBits string
	rounding string
	pairing  string
	neurons  string
	sparsity string
	target   float64
	plot     string
	json     bool
	jobs     int
}

func newSweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep MODEL [--frac-bits 1:12] [--target-error E]",
		Short: "Certified error bound for each fractional bit width",
		Long: `Sweep quantises MODEL to each number of fractional bits FB in --frac-bits
(weights and biases, rounding toward zero by default) and certifies the
largest output error of each copy over the input box, next to the largest
error actually found. The copy is fed the input quantised to the same FB
(--pairing quantised, the paper's setting) or the same input (--pairing
same). With --neurons or --sparsity it prunes first, one series per level.

With --target-error E it reports, for each pruning level, the smallest FB
whose certified bound is at most E: a bit width you can ship knowing the
error never exceeds E anywhere in the box.

It prints a table (or JSON with --json) and draws the bound and the error
against FB on a log scale (--plot; default MODEL-sweep.png in the current
directory).

Exit status: 0 when the sweep ran (and, with --target-error, some FB meets
the target), 1 when no FB meets the target or on an error, 2 usage error.`,
		Example: `  nnbound sweep model.onnx
  nnbound sweep model.onnx --frac-bits 4:10 --target-error 0.01
  nnbound sweep model.onnx --neurons 0,4,8 --frac-bits 2,4,6,8 --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("plot") {
				base := strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0]))
				f.plot = base + "-sweep.png"
			}
			return runSweep(cmd, args[0], &f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.fracBits, "frac-bits", "1:12", "fractional bit widths to try: a range `A:B` or a list A,B,...")
	fs.StringVar(&f.rounding, "rounding", quantise.DefaultOptions().Weights.Rounding.String(), "rounding of weights, biases and input: trunc, nearest or floor")
	fs.StringVar(&f.pairing, "pairing", "quantised", "input of the quantised copy: quantised (x2 = q(x1), same FB) or same (x2 = x1)")
	fs.StringVar(&f.neurons, "neurons", "", "also prune these numbers of hidden neurons first, `K1,K2,...` (one series each)")
	fs.StringVar(&f.sparsity, "sparsity", "", "also prune these fractions of the weights first, `S1,S2,...` (one series each)")
	fs.Float64Var(&f.target, "target-error", 0, "report the smallest FB whose certified bound is at most `E`")
	fs.StringVar(&f.plot, "plot", "", "write the figure to `FILE` (.png or .svg; \"\" for none) (default MODEL-sweep.png)")
	fs.BoolVar(&f.json, "json", false, "print the results as JSON")
	fs.IntVar(&f.jobs, "jobs", defaultJobs(), "certify this many bit widths at once")
	f.model.register(fs)
	f.input.register(fs)
	f.cert.register(fs)
	return cmd
}

// sweepRow is one certified bit width.
type sweepRow struct {
	Prune    string `json:"prune"`
	FracBits int    `json:"frac_bits"`
	certCore
	Seconds float64 `json:"seconds"`
	level   int
}

// sweepChoice is the answer to --target-error for one pruning level.
type sweepChoice struct {
	Prune string `json:"prune"`
	// FracBits is the smallest width meeting the target, 0 if none does.
	FracBits int           `json:"frac_bits"`
	Bound    report.Number `json:"bound"`
}

// sweepJSON is the --json output of nnbound sweep.
type sweepJSON struct {
	Model       string        `json:"model"`
	Input       inputJSON     `json:"input"`
	QC          string        `json:"qc"`
	TargetError report.Number `json:"target_error"`
	Rows        []sweepRow    `json:"rows"`
	Smallest    []sweepChoice `json:"smallest,omitempty"`
	Plot        string        `json:"plot,omitempty"`
}

func runSweep(cmd *cobra.Command, path string, f *sweepFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	widths, err := parseFracBits(f.fracBits)
	if err != nil {
		return err
	}
	levels, err := sweepLevels(f)
	if err != nil {
		return err
	}
	rounding, err := quantise.ParseRounding(f.rounding)
	if err != nil {
		return usagef("--rounding %q: want trunc, nearest or floor", f.rounding)
	}
	if f.pairing != "quantised" && f.pairing != "same" {
		return usagef("--pairing %q: want quantised or same", f.pairing)
	}
	if f.target < 0 || math.IsNaN(f.target) || math.IsInf(f.target, 0) {
		return usagef("--target-error %v: want a positive number", f.target)
	}
	if f.jobs < 1 {
		return usagef("--jobs %d: want 1 or more", f.jobs)
	}
	if f.plot != "" {
		if err := checkPlot(f.plot); err != nil {
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
	jobs := f.jobs
	if f.cert.verbose {
		jobs = 1 // one solver log at a time
	}
	m, err := f.model.load(path)
	if err != nil {
		return err
	}
	box, err := f.input.boxNoted(m.Net.InputSize(), stderr)
	if err != nil {
		return err
	}

	type task struct{ level, fb int }
	var tasks []task
	for li := range levels {
		for _, fb := range widths {
			tasks = append(tasks, task{li, fb})
		}
	}
	rows := make([]sweepRow, len(tasks))
	bar := progress.New(stderr, "sweep", len(tasks))
	err = parallel(cmd.Context(), len(tasks), jobs, func(ctx context.Context, i int) error {
		t := tasks[i]
		q := quantise.Format{FracBits: t.fb, Rounding: rounding}
		o := opts
		o.Pairing, o.Quant = bounds.SameInput, q
		if f.pairing == "quantised" {
			o.Pairing = bounds.QuantisedInput
		}
		f2, err := m.transform(func(core *nn.Network) (*nn.Network, error) {
			p, err := levels[t.level].apply(core)
			if err != nil {
				return nil, err
			}
			return quantise.Network(p, quantise.Options{Weights: q, Biases: q})
		})
		if err != nil {
			return err
		}
		c, err := certify.Bound(ctx, m.Net, f2, box, o)
		if err != nil {
			return err
		}
		rows[i] = sweepRow{Prune: levels[t.level].String(), FracBits: t.fb, certCore: newCertCore(c, o.Pairing),
			Seconds: c.Time.Seconds(), level: t.level}
		bar.Add(1)
		return nil
	})
	bar.Done()
	if err != nil {
		return err
	}

	j := sweepJSON{Model: path, Input: inputJSON{Lo: box.Lo, Hi: box.Hi, Pairing: f.pairing},
		QC: opts.QC.String(), TargetError: nan(), Rows: rows}
	met := true
	if f.target > 0 {
		j.TargetError = report.Number(f.target)
		j.Smallest = smallestWidths(rows, levels, f.target)
		met = false
		for _, c := range j.Smallest {
			met = met || c.FracBits > 0
		}
	}
	if f.plot != "" {
		fig, err := sweepFigure(path, rows, levels, f.target, j.Smallest)
		switch {
		case errors.Is(err, report.ErrData):
			fmt.Fprintf(stderr, "nnbound: no figure: nothing positive to draw on a log scale\n")
		case err != nil:
			return err
		default:
			if err := fig.Save(f.plot); err != nil {
				return err
			}
			j.Plot = f.plot
		}
	}
	if f.json {
		if hideTimes {
			for i := range j.Rows {
				j.Rows[i].Seconds = 0
			}
		}
		if err := report.WriteJSON(stdout, j); err != nil {
			return err
		}
	} else if err := writeSweep(stdout, m, box, f, levels, j); err != nil {
		return err
	}
	if !met {
		return errNotCertified
	}
	return nil
}

// smallestWidths returns, for each level, the smallest FB whose certified
// bound is at most target.
func smallestWidths(rows []sweepRow, levels []pruneLevel, target float64) []sweepChoice {
	out := make([]sweepChoice, len(levels))
	for li, l := range levels {
		out[li] = sweepChoice{Prune: l.String(), Bound: nan()}
		for _, r := range rows {
			if r.level != li || !r.Certified || float64(r.Bound) > target {
				continue
			}
			if out[li].FracBits == 0 || r.FracBits < out[li].FracBits {
				out[li].FracBits, out[li].Bound = r.FracBits, r.Bound
			}
		}
	}
	return out
}

// writeSweep prints the sweep table and the answer to --target-error.
func writeSweep(w io.Writer, m *model, box bounds.Box, f *sweepFlags, levels []pruneLevel, j sweepJSON) error {
	input := "the quantised copy gets the input quantised likewise, x2 = q(x1)"
	if f.pairing == "same" {
		input = "the quantised copy gets the same input, x2 = x1"
	}
	fmt.Fprintf(w, "nnbound sweep: %s, %s\ninput box %s; %s\n\n", m.describe(), sizes(m.Net), describeBox(box), input)
	header := []string{"FB", "certified bound", "observed error", "ratio", "time"}
	if len(levels) > 1 {
		header = append([]string{"pruned"}, header...)
	}
	t := report.NewTable(header...)
	for _, r := range j.Rows {
		bound, rt := report.Float(float64(r.Bound), 4), ratio(r.Ratio)
		if !r.Certified {
			bound = "not certified"
		}
		when := report.Seconds(r.Seconds)
		if hideTimes {
			when = "-"
		}
		cells := []string{fmt.Sprint(r.FracBits), bound, report.Float(float64(r.ObservedError), 4), rt, when}
		if len(levels) > 1 {
			cells = append([]string{r.Prune}, cells...)
		}
		t.AddRow(cells...)
	}
	t.Align = make([]report.Align, len(header))
	for i := range t.Align {
		t.Align[i] = report.Right
	}
	if len(levels) > 1 {
		t.Align[0] = report.Left
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	if f.target > 0 {
		fmt.Fprintln(w)
		for _, c := range j.Smallest {
			who := ""
			if len(levels) > 1 {
				who = " (pruned " + c.Prune + ")"
			}
			if c.FracBits == 0 {
				fmt.Fprintf(w, "no FB tried%s has a certified bound <= %s\n", who, report.Float(f.target, 4))
				continue
			}
			fmt.Fprintf(w, "smallest FB%s with certified bound <= %s: %d (bound %s)\n", who, report.Float(f.target, 4), c.FracBits, report.Float(float64(c.Bound), 4))
		}
	}
	if j.Plot != "" {
		fmt.Fprintf(w, "\nfigure: %s (bound and error against FB, log scale)\n", j.Plot)
	}
	return nil
}

// sweepFigure draws the bound and the error against FB, one series per
// pruning level.
func sweepFigure(path string, rows []sweepRow, levels []pruneLevel, target float64, chosen []sweepChoice) (*report.Figure, error) {
	s := report.Sweep{Title: filepath.Base(path) + ": certified bound and observed error", Target: target, Chosen: math.NaN()}
	for li, l := range levels {
		se := report.SweepSeries{}
		if len(levels) > 1 {
			se.Name = "pruned " + l.String()
		}
		for _, r := range rows {
			if r.level == li {
				se.X = append(se.X, float64(r.FracBits))
				b := float64(r.Bound)
				if !r.Certified {
					b = math.NaN()
				}
				se.Bound = append(se.Bound, b)
				se.Error = append(se.Error, float64(r.ObservedError))
			}
		}
		s.Series = append(s.Series, se)
	}
	if len(levels) == 1 && len(chosen) == 1 && chosen[0].FracBits > 0 {
		s.Chosen = float64(chosen[0].FracBits)
	}
	return report.SweepFigure(s)
}
