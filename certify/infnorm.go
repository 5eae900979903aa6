package certify

import (
	"context"
	"math"
	"slices"
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
// that output 0's SDP starts from); the outputs are then certified one at
// a time, each time the one with the largest bound so far (nextOutput),
// each refined until its refinement stops paying (its own Stop), under
// one time budget and ctx. The run ends when the largest bound is an
// output's certified on its own: refining an output whose bound is below
// it cannot lower the inf-norm's bound, which is max_j of the outputs'.
// An output not certified on its own, or cut short, keeps its enclosure
// of that first pass. The certificate's Stopped is that of the output
// whose bound is the largest (StopBudget or StopCancelled when the time
// budget or a signal cut the run while an output could still pay).
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
	// The inf-norm's search runs beside the outputs' certificates, under
	// the budget and the signal (after a cut root pass the budget would
	// leave it nothing).
	sctx, cancel := opts.budgetContext(ctx)
	defer cancel()
	searched := make(chan observation, 1)
	go func() { searched <- searchError(sctx, f1, f2, box, &opts) }()
	t0 := time.Now()
	// The first certificate (its first pass, if the budget or a signal
	// cut the full one: then no output is refined).
	rb, rootCut, err := rootPass(ctx, f1, f2, &root, &o0)
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
	wctx := ctx // the outputs' context: the budget's once a first bound stands
	if first != nil {
		wctx = sctx
	}

	outs := make([]float64, n) // each output's bound so far
	certs := make([]*Certificate, n)
	for j := range outs {
		outs[j] = math.Inf(1)
		if first != nil {
			outs[j] = first[j]
			certs[j] = firstCertificate(first, j)
		}
	}
	var order []int // the outputs certified on their own, in turn, then the others
	own := make([]bool, n)
	bounded := 0
	cut := rootCut != StopNone // the budget or a signal ended the run
	var seen observation
	for {
		j := nextOutput(outs, own)
		if j < 0 {
			break
		}
		if first != nil && (cut || wctx.Err() != nil) {
			cut = true
			break
		}
		o := unit(j)
		o.cuttable = first != nil
		if j == 0 {
			o.rootBounds = rb // not cut: the full pass's
		}
		if o.Progress != nil && first != nil {
			others := slices.Clone(outs)
			others[j] = 0
			o.Progress = infProgress(opts.Progress, others, bounded, &seen)
		}
		c := sdpBound(wctx, f1, f2, box, o)
		if c.Certified() || c.Status != Cancelled || certs[j] == nil {
			certs[j] = c
		}
		c = certs[j]
		own[j] = true
		order = append(order, j)
		if c.Bounded == 0 || c.Stopped == StopCancelled || c.Stopped == StopBudget || c.TimeBudgetHit {
			cut = true
		}
		outs[j] = c.Bound
		bounded += c.Bounded
		seen.keep(&search.Result{Error: c.ObservedError, X1: c.X1, X2: c.X2})
	}
	if first != nil && !own[0] {
		bounded++ // the first pass
	}
	for j := range own {
		if !own[j] {
			order = append(order, j)
		}
		if c := certs[j]; c != nil && c.Bounded == 0 && cut {
			// The first pass's enclosure stands: the budget or a signal
			// came before the output's SDP (which, below).
			c.SDPSkipped = SDPSkip{Why: SkipBudget}
		}
	}
	var worst *Certificate
	var stats SDPStats
	// The SDP's bound is the largest of the outputs certified on their
	// own (+Inf for none), the enclosure's of every output.
	sdpB, ivB := math.Inf(1), 0.0
	fallbacks := 0
	for k, j := range order {
		c := certs[j]
		if c == nil {
			continue // not reached after an output failed
		}
		switch {
		case k == 0 && own[j]:
			sdpB = c.SDPBound
		case own[j]:
			sdpB = max(sdpB, c.SDPBound)
		}
		ivB = max(ivB, c.IntervalBound)
		fallbacks += c.Fallbacks
		stats.Solves += c.SDP.Solves
		stats.Iterations += c.SDP.Iterations
		stats.Time += c.SDP.Time
		switch {
		case worst == nil:
			worst = c
		case !worst.Certified():
		case !c.Certified() || c.Bound > worst.Bound:
			worst = c
		}
	}
	for j := range own {
		if !own[j] && outs[j] > sdpB { // cut before that output's SDP: none is known
			sdpB = math.Inf(1)
		}
	}
	ob := <-searched
	if sctx.Err() != nil && seen.x1 != nil {
		// The search was cut: an output's search found that output's
		// error at its input; the inf-norm there is at least as large.
		seen.err = max(seen.err, measureAt(f1, f2, &seen, opts.q))
		if seen.err > ob.err {
			ob = seen
		}
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
		// The outputs are certified under one budget and one signal
		// (wctx: an output's run says cancelled for either).
		worst.Stopped, worst.TimeBudgetHit = StopBudget, true
		if ctx.Err() != nil {
			worst.Stopped, worst.TimeBudgetHit = StopCancelled, false
		}
		if w := worst.SDPSkipped.Why; w == SkipBudget || w == SkipCancelled {
			worst.SDPSkipped.Why = stopSkip(worst.Stopped)
		}
		if rootCut != StopNone && worst.Note == "" {
			worst.Note = rootCutNote(worst.Stopped) // as sdpBound's and jointInfBound's
		}
	}
	return worst
}

// nextOutput returns the output to certify on its own next: of those not
// yet (own), the one with the largest bound so far (the first of equals),
// if it is above the largest bound of those certified already; -1 when
// none is, refining it could not lower the largest bound.
func nextOutput(bounds []float64, own []bool) int {
	done, next := math.Inf(-1), -1
	for j, b := range bounds {
		switch {
		case own[j]:
			done = max(done, b)
		case next < 0 || b > bounds[next]:
			next = j
		}
	}
	if next < 0 || !(bounds[next] > done) {
		return -1
	}
	return next
}

// infProgress returns the Progress callback of one output's
// certification that reports to report the state of the whole: the
// bound with others, the bounds so far of the other outputs (0 for the
// output itself); the largest error found by any output's search; the
// pieces with bounded, those of the outputs certified before.
func infProgress(report func(Progress), others []float64, bounded int, seen *observation) func(Progress) {
	return func(p Progress) {
		for _, v := range others {
			p.Bound = max(p.Bound, v)
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
