package certify

import (
	"context"
	"errors"
	"fmt"
	"github.com/nnbound/nnbound/bounds"
	"slices"
	"time"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Refinement of a graph's certificate (BoundGraph), anytime: the first
// pass over the whole input set is already a certificate, and every split
// replaces a piece by its two halves, each bounded by a pass of its own,
// so the bound after any number of splits holds. The rules are Bound's
// (Refine, Certificate.Stopped): a split is started only while the bound
// is above Refine.TargetRatio times the observed error (StopTarget),
// while its two passes keep the pieces bounded (Certificate.Bounded, as
// for chains) within Refine.MaxPieces (StopCap), while splitting pays (the gain rule
// on Refine.MinGain, StopNoGain; with no cap of pieces, a box of more than
// MaxRefineInputs free inputs, such as an image, is not split at all),
// and, with a time budget, when its two passes fit in what is left of it,
// each estimated to take as long as the slowest pass so far, the first
// pass at the start (StopBudget). Without a time budget the rules do not
// read the clock, so the certificate does not depend on the machine's
// speed.

// graphRefiner is the state of the refinement of one certificate.
type graphRefiner struct {
	g1, g2 *nn.Graph
	whole  spec.Box
	q      spec.Quantity
	opts   Options
	c      *Certificate
	start  time.Time
	// pass is the longest time one pass has taken so far.
	pass   time.Duration
	passes int
}

// run refines the input set of root and returns the pieces, setting
// c.Stopped (and c.TimeBudgetHit) to why it stopped.
func (r *graphRefiner) run(ctx context.Context, root graphBound, pairing spec.Pairing) []graphBound {
	pieces := []graphBound{root}
	r.progress(root.bound, 1)
	if pairing == spec.Independent {
		return pieces // independent inputs are not split: StopNone
	}
	ob := r.c.ObservedError
	free := freeInputs(r.whole)
	if r.opts.Refine.MaxPieces == 0 && free > MaxRefineInputs && pairing != spec.QuantisedInput && !r.opts.Refine.reached(root.bound, ob) {
		r.c.Stopped = StopNoGain
		return pieces
	}
	gain := newGainRule(1, root.bound-ob, free)
	for {
		best := 0.0
		k := 0
		for i, p := range pieces {
			best = max(best, p.bound)
			if p.bound > pieces[k].bound {
				k = i
			}
		}
		if r.c.Stopped = r.stop(ctx, best, len(pieces)); r.c.Stopped != StopNone {
			return pieces
		}
		if len(pieces) > 1 && gain.noGain(len(pieces), best, ob, &r.opts.Refine) {
			r.c.Stopped = StopNoGain
			return pieces
		}
		a, b, ok := splitWidest(pieces[k].in, r.whole)
		if !ok {
			r.c.Stopped = StopExhausted
			return pieces
		}
		pa, errA := r.piece(ctx, a, len(pieces))
		pb, errB := r.piece(ctx, b, len(pieces)+1)
		if ctx.Err() != nil && (errA != nil || errB != nil) {
			r.c.Stopped = r.stop(ctx, best, len(pieces)) // StopCancelled
			return pieces
		}
		if err := errors.Join(errA, errB); err != nil {
			r.c.Note, r.c.Stopped = fmt.Sprintf("refinement stopped: %v", err), StopExhausted
			return pieces
		}
		// The piece's bound holds on its halves: a half keeps the smaller
		// (bound propagation is not monotone in the box).
		pa.bound, pb.bound = min(pa.bound, pieces[k].bound), min(pb.bound, pieces[k].bound)
		pieces[k] = pa
		pieces = append(pieces, pb)
		now := 0.0
		for _, p := range pieces {
			now = max(now, p.bound)
		}
		r.progress(now, len(pieces))
	}
}

// firstOnly ends a certificate whose full pass over the whole input set
// was cut short, by ctx or by the time budget: the cheap first pass's
// bound stands, and Stopped says why.
func (r *graphRefiner) firstOnly(ctx context.Context) {
	r.progress(r.c.RootBound, 1)
	if ctx.Err() != nil {
		r.c.Stopped, r.c.Note = StopCancelled, "stopped by a signal: the bound is the first cheap pass's"
		return
	}
	r.c.Stopped, r.c.TimeBudgetHit = StopBudget, true
	r.c.Note = "the time budget ran out during the full pass over the input set: the bound is the first cheap pass's"
}

// stop returns why the refinement stops before the next split of pieces
// whose largest bound is best, or StopNone to go on.
func (r *graphRefiner) stop(ctx context.Context, best float64, pieces int) Stop {
	ref := r.opts.Refine
	switch {
	case ctx.Err() != nil:
		r.c.Note = "stopped by a signal: the bound holds, refinement was cut short"
		return StopCancelled
	case r.c.ObservedError > 0 && ref.reached(best, r.c.ObservedError):
		return ref.ending(best, r.c.ObservedError)
	case ref.Enough > 0 && best <= ref.Enough:
		return StopEnough
	case ref.MaxPieces > 0 && r.passes+2 > ref.MaxPieces:
		return StopCap
	case ref.TimeBudget > 0 && time.Since(r.start)+2*r.pass > ref.TimeBudget:
		r.c.TimeBudgetHit = true
		return StopBudget
	}
	return StopNone
}

// progress calls Options.Progress, if set, with the bound of the pieces.
func (r *graphRefiner) progress(bound float64, pieces int) {
	if r.opts.Progress != nil {
		r.opts.Progress(Progress{Bound: bound, Observed: r.c.ObservedError, Pieces: pieces, Solves: r.passes})
	}
}

// piece bounds the quantity on in, the piece numbered n, timing the pass,
// unless ctx is done first.
func (r *graphRefiner) piece(ctx context.Context, in spec.Inputs, n int) (graphBound, error) {
	t0 := time.Now()
	p, err := graphPiece(ctx, r.g1, r.g2, in, r.q, r.opts.Arith, bounds.IntermediateBacksub)
	el := time.Since(t0)
	r.pass = max(r.pass, el)
	r.c.Timing.Propagation += el
	if err == nil {
		r.logPiece(n, p.bound)
	}
	return p, err
}

// logPiece writes the line of piece n to Options.Log.
func (r *graphRefiner) logPiece(n int, bound float64) {
	r.passes++
	if r.opts.Log != nil {
		fmt.Fprintf(r.opts.Log, "certify: graph pass %d (piece %d), bound %.6g, %.1f s\n", r.passes, n, bound, time.Since(r.start).Seconds())
	}
}

// freeInputs returns the number of inputs of box of positive width.
func freeInputs(box spec.Box) int {
	n := 0
	for i := range box.Lo {
		if box.Hi[i] > box.Lo[i] {
			n++
		}
	}
	return n
}

// splitWidest halves the box of in along its widest input relative to the
// whole box's width.
func splitWidest(in spec.Inputs, whole spec.Box) (a, b spec.Inputs, ok bool) {
	k, widest := -1, 0.0
	for i := range in.Box.Lo {
		if w := whole.Hi[i] - whole.Lo[i]; w > 0 {
			if r := (in.Box.Hi[i] - in.Box.Lo[i]) / w; r > widest {
				k, widest = i, r
			}
		}
	}
	if k < 0 {
		return in, in, false
	}
	mid := in.Box.Lo[k] + (in.Box.Hi[k]-in.Box.Lo[k])/2
	a, b = in, in
	a.Box = spec.Box{Lo: slices.Clone(in.Box.Lo), Hi: slices.Clone(in.Box.Hi)}
	b.Box = spec.Box{Lo: slices.Clone(in.Box.Lo), Hi: slices.Clone(in.Box.Hi)}
	a.Box.Hi[k], b.Box.Lo[k] = mid, mid
	return a, b, true
}
