package certify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Refinement of a graph's certificate (BoundGraph), anytime: the first
// pass over the whole input set is already a certificate, and every split
// replaces a piece by its two halves, each bounded by a pass of its own,
// so the bound after any number of splits holds. A split is started only
//
//   - while the bound is above Refine.TargetRatio times the observed error
//     and the pieces number fewer than Refine.MaxPieces;
//   - while it pays: the refinement stops after graphStallLimit(n)
//     consecutive splits that improved the bound by less than 1 %, a limit
//     that falls with the number n of inputs free to vary, since halving
//     one of n inputs gains about 1/n of what halving them all does; past
//     graphStall^2 inputs (an image) the limit is 0 and nothing is split;
//   - with a time budget (Refine.TimeBudget > 0), when its two passes fit
//     in what is left of the budget, each pass estimated to cost as long as
//     the slowest pass so far (the first pass, at the start).
//
// Without a time budget the rules do not read the clock, so the
// certificate does not depend on the machine's speed. Certificate.Reason
// says which rule stopped the refinement; TimeBudgetHit says when the
// budget did.

// graphStall is the most consecutive splits without 1 % of improvement
// after which the refinement of a graph's bound stops, for inputs of few
// dimensions.
const graphStall = 16

// graphStallLimit returns the consecutive splits without 1 % of
// improvement allowed for n free inputs: graphStall up to graphStall
// inputs, then graphStall^2 / n (0, no split, past graphStall^2).
func graphStallLimit(n int) int {
	if n <= graphStall {
		return graphStall
	}
	return graphStall * graphStall / n
}

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
// c.Reason (and c.TimeBudgetHit) to why it stopped.
func (r *graphRefiner) run(ctx context.Context, root graphBound, pairing spec.Pairing) []graphBound {
	pieces := []graphBound{root}
	if pairing == spec.Independent {
		r.c.Reason = "not refined: independent inputs are not split"
		return pieces
	}
	limit := graphStallLimit(freeInputs(r.whole))
	best, stall := root.bound, 0
	for {
		if why := r.stop(ctx, best, len(pieces), stall, limit); why != "" {
			r.c.Reason = why
			return pieces
		}
		k := 0
		for i, p := range pieces {
			if p.bound > pieces[k].bound {
				k = i
			}
		}
		a, b, ok := splitWidest(pieces[k].in, r.whole)
		if !ok {
			r.c.Reason = "refinement stopped: the piece with the largest bound is a point"
			return pieces
		}
		pa, errA := r.piece(a, len(pieces))
		pb, errB := r.piece(b, len(pieces)+1)
		if err := errors.Join(errA, errB); err != nil {
			r.c.Reason = fmt.Sprintf("refinement stopped: %v", err)
			return pieces
		}
		pieces[k] = pa
		pieces = append(pieces, pb)
		now := 0.0
		for _, p := range pieces {
			now = max(now, p.bound)
		}
		if now < 0.99*best {
			stall = 0
		} else {
			stall++
		}
		best = min(best, now)
	}
}

// stop returns why the refinement stops before the next split, or "" to
// go on.
func (r *graphRefiner) stop(ctx context.Context, best float64, pieces, stall, limit int) string {
	ref := r.opts.Refine
	switch {
	case ctx.Err() != nil:
		return "stopped by a signal: the bound holds, refinement was cut short"
	case r.c.ObservedError > 0 && best <= ref.TargetRatio*r.c.ObservedError:
		return fmt.Sprintf("refinement stopped: the bound is within %g times the observed error", ref.TargetRatio)
	case ref.MaxPieces > 0 && pieces >= ref.MaxPieces:
		return fmt.Sprintf("refinement stopped: %d pieces (--max-pieces)", pieces)
	case limit == 0:
		return fmt.Sprintf("not refined: %d inputs vary, too many for halving one at a time to gain 1 %%", freeInputs(r.whole))
	case stall >= limit:
		return fmt.Sprintf("refinement stopped: %d split(s) in a row gained less than 1 %% (%d inputs vary)", stall, freeInputs(r.whole))
	case ref.TimeBudget > 0 && time.Since(r.start)+2*r.pass > ref.TimeBudget:
		r.c.TimeBudgetHit = true
		return fmt.Sprintf("refinement stopped: a split's two passes (%.3g s each so far) would not finish within the time budget",
			r.pass.Seconds())
	}
	return ""
}

// piece bounds the quantity on in, the piece numbered n, timing the pass.
func (r *graphRefiner) piece(in spec.Inputs, n int) (graphBound, error) {
	t0 := time.Now()
	p, err := graphPiece(r.g1, r.g2, in, r.q, r.opts.Arith)
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
