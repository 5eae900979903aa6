package certify

import (
	"context"
	"math"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// The SDP of the settling's top pieces.
//
// Settling past the target ratio (settleTask), the largest piece bounds of
// a small box often sit on a plateau: dozens of pieces, the descendants of
// one, keep an ancestor's bound, and their own bounds by propagation are
// looser still however small they get (ACAS Xu 3/5_9: about 30 of its 484
// pieces at 0.00012344 from 276 pieces on, 628 pieces gave the same), or
// many pieces lie within a fraction of a per cent of the largest and
// each split moves it little (4/2_4). The SDP of the hull of those
// pieces, one small LMI over a box a few hundredths of the input set wide,
// closes most of what is left (3/5_9: 0.00012150 over 47 pieces, the
// error found 0.00012122; 4/2_4: 0.00019601 over its top two, where
// propagation had 0.00020106). Its bound holds on every piece inside the
// hull, each of which keeps the smaller of its bound and the SDP's.

// settleSDPs is the most SDPs settleSDP solves. The first few take
// most of what they gain (3/5_9: a third of its gap to the error found
// with the first, 4/2_4 below d6b939f's bound after four); later ones
// chip at a plateau of pieces near the top (ACAS Xu at rest, all 84:
// 12 SDPs 405 s of CPU and 5.52 s of wall at most, 6 SDPs 362 s and
// 4.76 s, every bound at most d6b939f's either way).
const settleSDPs = 6

// settleSDP returns the pieces of a cheap refinement that settled past the
// target ratio (stop StopTarget, the settling's conditions of refine, a
// pair of float networks) with the bounds of the SDPs of their top
// pieces: up to settleSDPs times, while the largest bound is above the
// settling's target (settleTask) and the time budget lasts, the region of
// the hull of the pieces within the settling's tolerance of the largest
// (bound at least the largest / (1 + (TargetRatio-1)/100)) is certified
// with the task o (its SDP, on bounds of its own); every piece inside
// the hull keeps the smaller bound. It stops at the first SDP that does
// not lower the largest bound. The solves are counted into c.
func settleSDP(ctx context.Context, f1, f2 *nn.Network, root region, pieces []piece, stop Stop, o *task, ob *observation,
	c *Certificate) []piece {
	if stop != StopTarget || f1.Quantised() || f2.Quantised() || o.Refine.MaxPieces != 0 || !(o.Refine.SettleWork > 0) ||
		root.Pairing != spec.SameInput || root.freeCoords() > MaxSplitInputs {
		return pieces
	}
	so := settleTask(o, StopTarget)
	// The SDP's bounds over the hull unsplit: with Split 16 the same
	// bounds on ACAS Xu 3/5_9 and 4/2_4 for eight times the CPU.
	so.settling, so.observed, so.Split = false, ob.err, 0
	solve := func(hull *region) regionResult {
		res := certifyRegion(ctx, f1, f2, hull, so)
		c.SDP.Solves++
		c.Bounded++
		c.TimeBudgetHit = c.TimeBudgetHit || res.budgetHit
		c.SDP.Iterations += res.iters
		c.SDP.Time += res.time
		return res
	}
	for solves := 0; solves < settleSDPs; {
		top := currentBound(math.Inf(1), pieces, nil)
		if math.IsInf(top, 1) || so.Refine.reached(top, ob.err) || ctx.Err() != nil || o.pastDeadline() {
			break
		}
		// The hull of the top pieces where they lie together, else (or
		// where its SDP does not lower the largest bound) the top
		// piece's alone.
		hull, n, compact := topHull(pieces, top/so.Refine.TargetRatio)
		res := regionResult{}
		if compact {
			res = solve(&hull)
			solves++
		}
		if !(res.ok && res.bound < top) && n > 1 && solves < settleSDPs {
			hull = topPiece(pieces, top)
			res = solve(&hull)
			solves++
		}
		if !(res.ok && res.bound < top) {
			break
		}
		for i := range pieces {
			p := &pieces[i]
			if p.ok && res.bound < p.bound && within(p.region.Box1, hull.Box1) {
				p.bound, p.interval, p.fellBack = res.bound, res.interval, res.fellBack
			}
		}
	}
	return pieces
}

// hullSlack is the most a hull of top pieces may exceed the volume of
// the pieces it holds for settleSDP to solve its SDP: a hull of pieces
// that lie apart holds many others, and its SDP is large and loose (ACAS
// Xu 3/1_4: 500-560 variables, 1 s of CPU, a bound ten times the top
// piece's; a family of 47 adjacent pieces of 3/5_9: 3.4 times their
// volume, 38 variables).
const hullSlack = 4

// topHull returns the region of the smallest box holding every piece of
// pieces whose bound is at least from (the same input to both networks),
// how many pieces it holds so, and whether its volume is at most
// hullSlack times theirs.
func topHull(pieces []piece, from float64) (hull region, n int, compact bool) {
	vol := func(b spec.Box) float64 {
		v := 1.0
		for i := range b.Lo {
			if w := b.Hi[i] - b.Lo[i]; w > 0 {
				v *= w
			}
		}
		return v
	}
	sum := 0.0
	for _, p := range pieces {
		if !(p.bound >= from) {
			continue
		}
		if n == 0 {
			hull = region{Box1: cloneBox(p.region.Box1), Pairing: p.region.Pairing}
		}
		for i := range hull.Box1.Lo {
			hull.Box1.Lo[i] = min(hull.Box1.Lo[i], p.region.Box1.Lo[i])
			hull.Box1.Hi[i] = max(hull.Box1.Hi[i], p.region.Box1.Hi[i])
		}
		sum += vol(p.region.Box1)
		n++
	}
	hull.Box2 = cloneBox(hull.Box1)
	return hull, n, n > 0 && vol(hull.Box1) <= hullSlack*sum
}

// topPiece returns a copy of the region of the first piece of pieces
// whose bound is at least top.
func topPiece(pieces []piece, top float64) region {
	for _, p := range pieces {
		if p.bound >= top {
			return region{Box1: cloneBox(p.region.Box1), Box2: cloneBox(p.region.Box1), Pairing: p.region.Pairing}
		}
	}
	panic("certify: topPiece: no piece at the top")
}

// within reports whether the box b lies inside the box h.
func within(b, h spec.Box) bool {
	for i := range b.Lo {
		if b.Lo[i] < h.Lo[i] || b.Hi[i] > h.Hi[i] {
			return false
		}
	}
	return true
}
