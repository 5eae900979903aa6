package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/agree"
	"github.com/nnbound/nnbound/agree/top1"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/numtext"
	"github.com/nnbound/nnbound/internal/progress"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
)

// agreementFlags are the flags of nnbound allocate --target-agreement.
type agreementFlags struct {
	target float64
	ball   agreeFlags // data, labels, radius, domain, out, workers
}

// register adds the flags to fs.
func (f *agreementFlags) register(fs *pflag.FlagSet) {
	fs.Float64Var(&f.target, "target-agreement", 0, "instead of --target-error: the smallest certified top-1 agreement rate `A` (0 < A <= 1) on the balls of --data")
	fs.StringVar(&f.ball.data, "data", "", "with --target-agreement: the test set `FILE` (.json, .csv or .npy, as for agree)")
	fs.StringVar(&f.ball.labels, "labels", "", "labels of a .npy test set, `FILE`")
	fs.StringVar(&f.ball.radius, "radius", "", "with --target-agreement: L-inf radius `R` of the balls (a number, or a fraction such as 2/255)")
	fs.StringVar(&f.ball.domain, "domain", "0:1", "input domain `LO:HI` the balls are clipped to")
	fs.StringVar(&f.ball.out, "out", "allocate-agree", "with --target-agreement: write each copy's agree log to `DIR`/fb-A-B-... (read first, to resume)")
	fs.IntVar(&f.ball.workers, "workers", 0, "with --target-agreement: balls decided at once (0: one per CPU)")
	fs.IntVar(&f.ball.maxNodes, "max-nodes", top1.DefaultMaxNodes, "with --target-agreement: a ball not decided after bounding this many boxes is unknown")
	// agree's node limit per ball and no time limit: the allocation must
	// not depend on the machine's speed
	f.ball.timeout = 0
}

// errorOnlyFlags are the flags of allocate that only --target-error
// reads: the certificates' options and input box.
var errorOnlyFlags = []string{"timeout", "samples", "seed", "max-pieces", "target-ratio", "qc", "weights", "requant-slack", "jobs", "box", "lo", "hi", "vnnlib"}

// runAllocateAgreement is nnbound allocate --target-agreement: the
// greedy search of experiment.AgreementAllocation, each copy judged by
// agree.Run with agree/top1's decider over the balls of the test set.
func runAllocateAgreement(cmd *cobra.Command, path string, f *allocateFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	g := &f.agreement
	if cmd.Flags().Changed("target-error") {
		return usagef("--target-error and --target-agreement: give one target")
	}
	if f.report != "" {
		return usagef("--report and --target-agreement do not go together: the page shows an allocation for --target-error")
	}
	for _, name := range errorOnlyFlags {
		if cmd.Flags().Changed(name) {
			return usagef("--%s goes with --target-error: --target-agreement judges each copy on the balls of --data, with no time limit (--max-nodes limits each ball)", name)
		}
	}
	if f.starts < 1 {
		return usagef("--starts %d: want 1 or more", f.starts)
	}
	bits, int8Opts, err := f.int8Scheme(cmd)
	if err != nil {
		return err
	}
	if !(g.target > 0 && g.target <= 1) {
		return usagef("--target-agreement %v: want a rate in (0, 1]", g.target)
	}
	q, err := g.ball.question()
	if err != nil {
		return err
	}
	widths, err := parseWidths("frac-bits", f.fracBits)
	if err != nil {
		return err
	}
	rounding, err := quantise.ParseRounding(f.rounding)
	if err != nil {
		return usagef("--rounding %q: want trunc, nearest or floor", f.rounding)
	}
	if err := checkSavePath("--save", f.save); err != nil {
		return err
	}
	m, err := f.model.load(path)
	if err != nil {
		return err
	}
	samples, err := agree.Read(g.ball.data, g.ball.labels)
	if err != nil {
		return err
	}
	if n := len(samples[0].X); n != m.Net.InputSize() {
		return fmt.Errorf("allocate: %s has samples of %s, the network takes %d", g.ball.data, numtext.Count(n, "value"), m.Net.InputSize())
	}
	files, err := agreeInputs([]string{path}, &g.ball)
	if err != nil {
		return err
	}
	copies := fmt.Sprintf("rounding %s", rounding)
	if int8Opts != nil {
		copies = int8Opts.String()
	}
	question := fmt.Sprintf("the copies of %s (%s) %s", filepath.Base(path), copies, q.On(g.ball.data, files))
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	judge := func(ctx context.Context, copy *nn.Network, name string) (int, int, error) {
		bar := progress.New(stderr, "allocate "+name, len(samples))
		defer bar.Done()
		sum, err := top1.Run(ctx, m.Net, copy, q, g.ball.maxNodes, samples, agree.Options{Dir: filepath.Join(g.ball.out, name),
			Question: question + ", copy " + name, Workers: g.ball.workers, Timeout: g.ball.timeout, Report: barWriter{bar}})
		if err != nil {
			return 0, 0, err
		}
		return sum.Agree, sum.Samples, nil
	}
	a := &experiment.AgreementAllocation{Widths: sortedUnique(widths), Rounding: rounding, Target: g.target, Starts: f.starts}
	if int8Opts != nil {
		a.Widths, a.Int8 = bits, int8Opts
		for _, s := range samples {
			a.Calibration = append(a.Calibration, s.X)
		}
	}
	r, err := a.Run(ctx, m.Info.Core, m.Info.Rebuild, judge)
	if err != nil {
		return err
	}
	r.Model = path
	if f.save != "" && r.Met() {
		if err := r.Save(f.save); err != nil {
			return err
		}
	}
	if f.json {
		err = report.WriteJSON(stdout, r)
	} else {
		err = r.WriteText(stdout, m.heading(), "question: "+question+"; each copy gets the same input, x2 = x1")
	}
	if err != nil {
		return err
	}
	if !r.Met() {
		return errNotCertified
	}
	return nil
}
