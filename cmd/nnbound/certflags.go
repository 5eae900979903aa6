package main

import (
	"fmt"
	"io"
	"math"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/duration"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// certFlags are the flags that tune a certification, shared by every
// command that certifies a bound. They bind onto a copy of
// certjob.Default(), so the defaults printed by -h are the
// library's:
//
//	--qc default|paper        the quadratic-constraint set
//	--weights MODE            objective weights: worst-case, unit or paper
//	--samples N               random input pairs for the observed error
//	--seed S                  seed of that sampling
//	--max-pieces N            input splitting: most pieces bounded (0: no cap)
//	--target-ratio R          input splitting: stop at bound / observed error <= R
//	--timeout D               input splitting: stop after this long (alias --time-budget)
//	--requant-slack K         int8 models: widen every re-quantisation by K steps
//	-v, --verbose             the solver's iteration log and where the time went on stderr
//
// A command calls register, then options once flags are parsed.
type certFlags struct {
	opts    certjob.Job
	qc      string
	weights string
	verbose bool
}

// register adds the flags to fs with the library's defaults.
func (f *certFlags) register(fs *pflag.FlagSet) {
	f.opts = certjob.Default()
	f.qc = f.opts.QC.String()
	f.weights = f.opts.Weights.String()
	fs.StringVar(&f.qc, "qc", f.qc, "quadratic-constraint set: default (nnbound's, faster and tighter) or paper (exactly the authors')")
	fs.StringVar(&f.weights, "weights", f.weights, "objective weights of the gammas: worst-case, unit or paper")
	fs.IntVar(&f.opts.Samples, "samples", f.opts.Samples, "random input pairs evaluated for the observed error")
	fs.Uint64Var(&f.opts.Seed, "seed", f.opts.Seed, "seed of the observed-error sampling")
	fs.IntVar(&f.opts.Refine.MaxPieces, "max-pieces", f.opts.Refine.MaxPieces, "cap the pieces bounded, each by its SDP or by bound propagation: the whole box, then both halves of every split (graphs: no SDP; --norm inf on chains: each output's) (0: no cap, splitting goes on while it pays; 1: no splitting)")
	fs.Float64Var(&f.opts.Refine.TargetRatio, "target-ratio", f.opts.Refine.TargetRatio, "stop refining once bound / observed error is at most this (>= 1)")
	duration.Var(fs, &f.opts.Refine.TimeBudget, "timeout", "stop the SDPs after this long, bounding the rest by bound propagation, and skip those that cannot pay (0: no limit, every SDP solved; the result then does not depend on the machine's speed; --time-budget is another name)")
	fs.Float64Var(&f.opts.RequantSlack, "requant-slack", f.opts.RequantSlack, "int8 (QDQ) models: widen every re-quantisation by `K` steps, for integer kernels that round differently")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "print the SDP solver's iteration log and where the time went on stderr")
}

// options returns the certification options, with the solver log on
// stderr under -v. Invalid values are usage errors.
func (f *certFlags) options(stderr io.Writer) (certjob.Job, error) {
	o := f.opts
	qc, err := certify.ParseQCSet(f.qc)
	if err != nil {
		return o, usagef("--qc %q: want default or paper", f.qc)
	}
	o.QC = qc
	if sl := o.RequantSlack; !(sl >= 0 && sl <= 1<<20) {
		return o, usagef("--requant-slack %v: want 0 to 2^20 steps", sl)
	}
	w, err := certify.ParseWeightMode(f.weights)
	if err != nil || w == certify.WeightsCustom {
		return o, usagef("--weights %q: want worst-case, unit or paper", f.weights)
	}
	o.Weights = w
	if err := checkLimits(o.Refine.TimeBudget, count{"--samples", o.Samples}); err != nil {
		return o, err
	}
	switch {
	case o.Refine.MaxPieces < 0:
		return o, usagef("--max-pieces %d: want 0 (no cap) or more", o.Refine.MaxPieces)
	case !(o.Refine.TargetRatio >= 1) || math.IsInf(o.Refine.TargetRatio, 1):
		return o, usagef("--target-ratio %v: want a number >= 1", o.Refine.TargetRatio)
	}
	if f.verbose {
		o.Solver.Log = stderr
		o.Log = stderr
	}
	return o, nil
}

// jobs returns n, the certifications a command runs at once, or 1 under
// -v: one solver log at a time.
func (f *certFlags) jobs(n int) int {
	if f.verbose {
		return 1
	}
	return n
}

// noTimeBudget makes the default of --timeout 0, so that the results
// do not depend on the machine's speed, for commands whose output must be
// reproducible (demo, paper); -h shows that default. Call it after
// register.
func (f *certFlags) noTimeBudget(fs *pflag.FlagSet) {
	f.opts.Refine.TimeBudget = 0
	fs.Lookup("timeout").DefValue = f.opts.Refine.TimeBudget.String()
}

// pairFlags choose how the second network's input relates to the first's,
// the same way on every command that compares two networks:
//
//	--pairing same|independent|quantised   (default same: x2 = x1)
//	--input-frac-bits FB                   quantised: x2 = q(x1) with FB fractional
//	                                       bits (default: the copy's width)
//	--input-rounding trunc|nearest|floor   quantised: the rounding of q (default trunc)
type pairFlags struct {
	pairing  string
	fracBits int // 0 unless set: the copy's width, see copyWidth
	rounding string
	fs       *pflag.FlagSet
}

func (p *pairFlags) register(cmd *cobra.Command, o certjob.Job) {
	p.pairing, p.rounding = spec.SameInput.String(), o.Quant.Rounding.String()
	f := cmd.Flags()
	p.fs = f
	f.StringVar(&p.pairing, "pairing", p.pairing, "how x2 relates to x1: same (x2 = x1), independent (x1 and x2 anywhere in the box) or quantised (x2 = q(x1))")
	f.IntVar(&p.fracBits, "input-frac-bits", 0, "--pairing quantised: fractional bits `FB` of the input quantiser q (default: the copy's width)")
	f.StringVar(&p.rounding, "input-rounding", p.rounding, "--pairing quantised: rounding of q: trunc, nearest or floor")
}

// apply sets the pairing and quantiser of o; the quantiser's width stays
// 0 when --input-frac-bits leaves it to the copy (see copyWidth).
func (p *pairFlags) apply(o *certjob.Job) error {
	pairing, err := spec.ParsePairing(p.pairing)
	if p.pairing == "quantized" {
		pairing, err = spec.QuantisedInput, nil
	}
	if err != nil {
		return usagef("--pairing %q: want same, independent or quantised", p.pairing)
	}
	o.Pairing = pairing
	r, err := quantise.ParseRounding(p.rounding)
	if err != nil {
		return usagef("--input-rounding %q: want trunc, nearest or floor", p.rounding)
	}
	if (p.fracBits != 0 || p.fs.Changed("input-frac-bits")) && (p.fracBits < 1 || p.fracBits > quantise.MaxFracBits) {
		return usagef("--input-frac-bits %d: want 1 to %d", p.fracBits, quantise.MaxFracBits)
	}
	for _, name := range []string{"input-frac-bits", "input-rounding"} {
		if pairing != spec.QuantisedInput && p.fs.Changed(name) {
			return usagef("--%s goes with --pairing quantised (the pairing is %s)", name, pairing)
		}
	}
	o.Quant = quantise.Format{FracBits: p.fracBits, Rounding: r}
	return nil
}

// copyWidth gives o's input quantiser, under --pairing quantised without
// --input-frac-bits, the width of the copy (certjob.Job.CopyWidth) and
// says so on stderr; a copy on no fixed-point grid is a usage error
// asking for --input-frac-bits.
func copyWidth(o *certjob.Job, copy *nn.Graph, name string, stderr io.Writer) error {
	fb, ok := o.CopyWidth(copy)
	if !ok {
		return usagef("--pairing quantised: the weights of %s are on no fixed-point grid of up to %d fractional bits; give --input-frac-bits", name, quantise.MaxFracBits)
	}
	if fb > 0 {
		fmt.Fprintf(stderr, "note: --pairing quantised: x2 = q(x1) with %d fractional bits, the width of %s's weights (--input-frac-bits to change)\n", fb, name)
	}
	return nil
}

// arithFlag is --arith, the arithmetic a certificate covers, on the
// commands that certify through graphs (compare, quantise --certify):
//
//	--arith real|float32   real (default): exact reals, float64-checked;
//	                       float32: also any float32 evaluation (bound
//	                       propagation through the graphs, no SDP, for
//	                       chains too)
type arithFlag struct{ name string }

// register adds --arith to fs.
func (a *arithFlag) register(fs *pflag.FlagSet) {
	a.name = certify.ArithReal.String()
	fs.StringVar(&a.name, "arith", a.name, "arithmetic the bound covers: real (exact reals, float64-checked) or float32 "+
		"(also float32 evaluation as onnxruntime and torch run it; bound propagation through the graphs, no SDP, also for chains)")
}

// apply sets o.Arith (real when the flag was not registered), or
// returns a usage error.
func (a *arithFlag) apply(o *certjob.Job) error {
	if a.name == "" {
		o.Arith = certify.ArithReal
		return nil
	}
	ar, err := certify.ParseArith(a.name)
	if err != nil {
		return usagef("--arith %q: want real or float32", a.name)
	}
	o.Arith = ar
	return nil
}

// float32 reports whether --arith is float32.
func (a *arithFlag) float32() bool { return a.name == certify.ArithFloat32.String() }
