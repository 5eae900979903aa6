// Package top1 decides the samples of an agreement run (package agree)
// with nnbound's verifier: it is the agree.Decider of "nnbound agree".
//
// For a sample x it decides, with verify.DecideTop1, whether f and g
// pick the same class at every input of the ball
//
//	{x' : |x'_i - x_i| <= r, Lo <= x'_i <= Hi}
//
// (the L-inf ball of radius r clipped to the input domain [Lo, Hi]),
// g fed the same input. Holds is agree.Agree, Violated agree.Disagree
// with the input that verify.CheckTop1 proved, and Unknown agree.Unknown
// with its reason. The classes at x itself (verify.Class) give the clean
// accuracy.
package top1

import (
	"context"
	"fmt"

	"github.com/nnbound/nnbound/agree"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
)

// Question is what is asked of each sample: the radius of the ball and
// the input domain it is clipped to.
type Question struct {
	Radius float64
	Lo, Hi float64
}

// String describes q as a run's question names it: "L-inf radius R in
// [LO, HI]".
func (q Question) String() string {
	return fmt.Sprintf("L-inf radius %v in [%v, %v]", q.Radius, q.Lo, q.Hi)
}

// Ball returns the ball of q about x.
func (q Question) Ball(x []float64) spec.Box { return spec.Ball(x, q.Radius, q.Lo, q.Hi) }

// Decider returns the decider of q for f and g, searching each ball with
// opts (nil: verify.DefaultOptions() on one worker: the run decides
// samples in parallel instead).
func Decider(f, g *nn.Network, q Question, opts *verify.Options) agree.Decider {
	o := verify.DefaultOptions()
	o.Workers = 1
	if opts != nil {
		o = *opts
	}
	return func(ctx context.Context, s agree.Sample) agree.Outcome {
		if len(s.X) != f.InputSize() {
			return agree.Outcome{Verdict: agree.Error, Reason: fmt.Sprintf("top1: sample %d has %d values, the networks take %d", s.Index, len(s.X), f.InputSize())}
		}
		yf, err := f.Eval(s.X)
		if err != nil {
			return agree.Outcome{Verdict: agree.Error, Reason: fmt.Sprintf("top1: network 1: %v", err)}
		}
		yg, err := g.Eval(s.X)
		if err != nil {
			return agree.Outcome{Verdict: agree.Error, Reason: fmt.Sprintf("top1: network 2: %v", err)}
		}
		out := agree.Outcome{ClassF: verify.Class(yf), ClassG: verify.Class(yg)}
		res, err := verify.DecideTop1(ctx, f, g, spec.Inputs{Box: q.Ball(s.X)}, &o)
		if err != nil {
			out.Verdict, out.Reason = agree.Error, err.Error()
			return out
		}
		out.Nodes, out.Time = res.Nodes, res.Time
		switch res.Status {
		case verify.Holds:
			out.Verdict = agree.Agree
		case verify.Violated:
			out.Verdict, out.Witness, out.Detail = agree.Disagree, res.Counterexample.X, res.Counterexample
		default:
			out.Verdict, out.Reason = agree.Unknown, res.Reason.String()
		}
		return out
	}
}
