package main

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/internal/duration"
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
//	--max-pieces N            input splitting: most SDPs to solve
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
	fs.IntVar(&f.opts.Refine.MaxPieces, "max-pieces", f.opts.Refine.MaxPieces, "split the input box into at most this many pieces, one SDP each (1: no splitting)")
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
	switch {
	case o.Samples < 0:
		return o, usagef("--samples %d: want 0 or more", o.Samples)
	case o.Refine.MaxPieces < 1:
		return o, usagef("--max-pieces %d: want 1 or more", o.Refine.MaxPieces)
	case o.Refine.TimeBudget < 0:
		return o, usagef("--timeout %v: want 0 or more", o.Refine.TimeBudget)
	}
	if f.verbose {
		o.Solver.Log = stderr
		o.Log = stderr
	}
	return o, nil
}

// noTimeBudget makes the default of --timeout 0, so that the results
// do not depend on the machine's speed, for commands whose output must be
// reproducible (demo, paper); -h shows that default. Call it after
// register.
func (f *certFlags) noTimeBudget(fs *pflag.FlagSet) {
	f.opts.Refine.TimeBudget = 0
	fs.Lookup("timeout").DefValue = f.opts.Refine.TimeBudget.String()
}

// pairFlags choose how the second network's input relates to the first's:
//
//	--pairing independent|same|quantised   (default independent)
//	--input-frac-bits FB                   quantised: x2 = q(x1) with FB fractional bits
//	--input-rounding trunc|nearest|floor   quantised: the rounding of q (default trunc)
type pairFlags struct {
	pairing  string
	fracBits int
	rounding string
}

func (p *pairFlags) register(cmd *cobra.Command, def spec.Pairing, o certjob.Job) {
	p.pairing, p.fracBits, p.rounding = def.String(), o.Quant.FracBits, o.Quant.Rounding.String()
	f := cmd.Flags()
	f.StringVar(&p.pairing, "pairing", p.pairing, "how x2 relates to x1: independent, same (x2 = x1) or quantised (x2 = q(x1))")
	f.IntVar(&p.fracBits, "input-frac-bits", p.fracBits, "fractional bits of the input quantiser q (--pairing quantised; quantise: default --frac-bits)")
	f.StringVar(&p.rounding, "input-rounding", p.rounding, "rounding of the input quantiser: trunc, nearest or floor")
}

// apply sets the pairing and quantiser of o.
func (p *pairFlags) apply(o *certjob.Job) error {
	switch p.pairing {
	case "independent":
		o.Pairing = spec.Independent
	case "same":
		o.Pairing = spec.SameInput
	case "quantised", "quantized":
		o.Pairing = spec.QuantisedInput
	default:
		return usagef("--pairing %q: want independent, same or quantised", p.pairing)
	}
	r, err := quantise.ParseRounding(p.rounding)
	if err != nil {
		return usagef("--input-rounding %q: want trunc, nearest or floor", p.rounding)
	}
	if p.fracBits < 1 || p.fracBits > quantise.MaxFracBits {
		return usagef("--input-frac-bits %d: want 1 to %d", p.fracBits, quantise.MaxFracBits)
	}
	o.Quant = quantise.Format{FracBits: p.fracBits, Rounding: r}
	return nil
}
