package certify

import (
	"context"
	"math"
	"time"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// infBound certifies max_j |f1_j - f2_j| by one SDP per output j (with
// C = e_j, sdpBound) and takes the largest bound; the gammas are those of
// the output with the largest bound. Anytime: one pass of bound
// propagation over the input set first encloses every output (the pass
// that the first output's SDP starts from), and the outputs are then
// certified in turn under the time budget and ctx; an output cut short,
// or not reached, keeps its enclosure of that first pass, and the
// certificate says why it stopped (StopBudget, StopCancelled).
// Certificate.Bounded counts the pieces bounded over all outputs.
func infBound(ctx context.Context, f1, f2 *nn.Network, box spec.Box, opts task) *Certificate {
	n := f1.OutputSize()
	unit := func(j int) task {
		o := opts
		o.q.C = spec.OutputC(n, j)
		return o
	}
	o0 := unit(0)
	root := rootRegion(box, &o0)
	t0 := time.Now()
	// The first certificate: a signal does not stop it.
	rb, err := boundsOf(context.WithoutCancel(ctx), f1, f2, &root, &o0)
	add(&opts.timing.Propagation, t0)
	var first []float64 // the first pass's bound of each output
	if err == nil {
		for _, iv := range rb.Output {
			first = append(first, iv.Mag())
		}
		if m := maxOf(first); math.IsNaN(m) || math.IsInf(m, 0) {
			first = nil
		}
	}
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if !opts.deadline.IsZero() && first != nil {
		wctx, cancel = context.WithDeadline(ctx, opts.deadline)
	}
	defer cancel()

	var worst *Certificate
	outs := make([]float64, n)
	var stats SDPStats
	sdpB, ivB := 0.0, 0.0
	fallbacks, bounded := 0, 0
	cut := false // an output was cut short or not reached
	var seen observation
	for j := range outs {
		c := firstCertificate(first, j)
		if c == nil || wctx.Err() == nil {
			o := unit(j)
			o.cuttable = c != nil
			if j == 0 {
				o.rootBounds = rb
			}
			if o.Progress != nil && first != nil {
				o.Progress = infProgress(opts.Progress, outs[:j], first[j+1:], bounded, &seen)
			}
			oc := sdpBound(wctx, f1, f2, box, o)
			if oc.Certified() || oc.Status != Cancelled || c == nil {
				c = oc
			}
		} else if j == 0 {
			bounded++ // the first pass
		}
		if c.Bounded == 0 || c.Stopped == StopCancelled || c.Stopped == StopBudget || c.TimeBudgetHit {
			cut = true
		}
		outs[j] = c.Bound
		sdpB, ivB = max(sdpB, c.SDPBound), max(ivB, c.IntervalBound)
		fallbacks += c.Fallbacks
		bounded += c.Bounded
		stats.Solves += c.SDP.Solves
		stats.Iterations += c.SDP.Iterations
		stats.Time += c.SDP.Time
		seen.keep(&search.Result{Error: c.ObservedError, X1: c.X1, X2: c.X2})
		switch {
		case worst == nil:
			worst = c
		case !worst.Certified():
		case !c.Certified() || c.Bound > worst.Bound:
			worst = c
		}
	}
	ob := searchError(wctx, f1, f2, box, &opts)
	if wctx.Err() != nil && seen.err > ob.err {
		// The search was cut: the error an output's search found is an
		// error of the inf-norm at its input, if not all of it.
		ob = seen
	}
	worst.ObservedError, worst.X1, worst.X2, worst.ObservedExact = ob.err, ob.x1, ob.x2, ob.exact
	stats.Size, stats.Variables, stats.Status, stats.Objective = worst.SDP.Size, worst.SDP.Variables, worst.SDP.Status, worst.SDP.Objective
	worst.SDP = stats
	worst.Outputs = outs
	worst.Fallbacks = fallbacks
	worst.Bounded = bounded
	worst.SDPBound, worst.IntervalBound = sdpB, ivB
	worst.Pieces = nil
	if cut && worst.Certified() {
		// The outputs are certified under one budget and one signal.
		worst.Stopped, worst.TimeBudgetHit = StopBudget, true
		if ctx.Err() != nil {
			worst.Stopped, worst.TimeBudgetHit = StopCancelled, false
		}
	}
	return worst
}

// infProgress returns the Progress callback of one output's
// certification that reports to report the state of the whole: the
// bound with done, the bounds of the outputs certified before, and next,
// the first pass's bounds of those after; the largest error found by
// any output's search; the pieces with bounded, those of the outputs
// before.
func infProgress(report func(Progress), done, next []float64, bounded int, seen *observation) func(Progress) {
	return func(p Progress) {
		for _, b := range [2][]float64{done, next} {
			for _, v := range b {
				p.Bound = max(p.Bound, v)
			}
		}
		p.Observed = max(p.Observed, seen.err)
		p.Solves += bounded
		report(p)
	}
}

// firstCertificate returns the certificate of output j from the first
// pass's bounds first of every output (nil: none).
func firstCertificate(first []float64, j int) *Certificate {
	if first == nil {
		return nil
	}
	b := first[j]
	return &Certificate{Status: Certified, Bound: b, RootBound: b, IntervalBound: b, SDPBound: math.Inf(1), Source: MethodPropagation,
		Gammas: Gammas{Gamma: outward.MulUpStep(b, b)}}
}
