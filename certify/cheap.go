package certify

import (
	"context"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/bounds/smear"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// The cheap refinement: the first refinement of Bound, before any SDP.
//
// Bound propagation on a piece of the input set costs milliseconds where
// its SDP costs seconds, and on small boxes it is nearly as tight, so
// Bound first splits the input set with pieces bounded by propagation
// alone (refine with task.propOnly), best first, in batches, while that
// pays (the rules of Refine: the target ratio, the gain rule, MaxPropWork,
// the time budget). Each piece is bounded by bounds.Pair without Split,
// the refinement splitting instead: from its parent's enclosures
// (bounds.Options.Within), with the cheaper relaxations of branch and
// bound (PlainPairs, UnstableOnly), halving next the coordinate of
// largest difference smear (smear.Difference, the heuristic of package
// verify). On a box of at most MaxSplitInputs free coordinates it settles
// past the target ratio, and for a float pair past the work budget too
// (Refine.SettleWork: unsearched pieces, the joint pairs, the widest
// coordinate after a halving that kept its parent's bound, and past the
// work budget the widest always; such a pair's
// pieces go unsearched from half the work budget on), and a float pair
// that settled past the target ends with the SDPs of the hulls of its top
// pieces (settleSDP). Each piece's bound is an enclosure of the quantity on it, and
// the pieces cover the input set, so the largest of them is a bound on
// the whole set, as for the SDP's pieces. The SDP runs afterwards, where
// it can still pay (sdpBound), and the smaller of the two bounds is
// reported.

// unsplitRoot returns o, or with unsplit a copy of o without Split: the
// root's first pass when the cheap refinement follows (cheapFirst). Its
// pieces split the input set instead, and within a few dozen splits they
// are past the root's Split sub-boxes, which on an ACAS Xu pair cost
// 1.2-1.5 s of CPU before the first bound; the refinements' bounds were
// the same but on one of 7 instances tried (3/5_9, 0.02 % looser:
// docs/notes/2026-12-acasxu-settle.md). sdpBound bounds the root with
// Split only where the whole set's SDP follows (not skipped as close
// enough), which is built on those bounds.
func unsplitRoot(o *task, unsplit bool) *task {
	if !unsplit {
		return o
	}
	u := *o
	u.Split = 0
	return &u
}

// cheapIterations is the number of gradient steps per layer of the
// optimised slopes (bounds.OptimiseSettings.Iterations) on a piece of the
// cheap refinement, where Options.Optimise leaves it to the default: a
// piece starts from its parent's bounds, and a quarter of the default's
// steps costs a third less for bounds within about 1 % (docs/tuning.md).
const cheapIterations = 5

// cheapIterationsQuantised replaces cheapIterations when either network
// has activation quantisers (int8 QDQ): there the pieces stay wide
// (the rounding noise of every re-quantisation keeps their bounds
// apart from the error found), and twice the steps gives a tighter bound
// for the same CPU (docs/tuning.md).
const cheapIterationsQuantised = 10

// quantisedPropWork multiplies Refine.MaxPropWork for the cheap
// refinement of quantised networks. Their pieces keep paying far beyond
// the work that ends a float pair's (each doubling of the pieces of an
// int8 MLP of 4-8 inputs still takes 10-20 % off its bound: the rounding
// noise of the re-quantisations gives way only on small pieces), so
// there the gain rule, the target ratio and the time budget decide. At
// 4e10 (the default) a 6-input MLP (6-32-32-2) stopped at 2.57 times the
// error found after 7,268 pieces and 29 s of CPU, 37 s before its time
// budget; with four times, 2.46 on the clock.
const quantisedPropWork = 4

// cheapFirst reports whether Bound refines cheaply before the SDP: for
// the same input to both networks (the smear and the parents' bounds are
// those of one box), with the default QC set, with no cap of pieces (a
// cap counts pieces, and at a given count pieces bounded over Split
// sub-boxes, or by SDPs, are tighter), and on a box that refine would
// split.
func cheapFirst(root *region, o *task) bool {
	return o.in.Pairing == spec.SameInput && o.QC == QCDefault && o.Refine.MaxPieces == 0 &&
		root.freeCoords() <= MaxRefineInputs
}

// cheapRefine refines the root region, whose bounds are rb, with pieces
// bounded by propagation alone, and returns the pieces, why it stopped,
// and the pieces certified, counted into c (SDP.Solves, TimeBudgetHit).
func cheapRefine(ctx context.Context, f1, f2 *nn.Network, root region, rb *regionBounds, o *task, ob *observation,
	c *Certificate) ([]piece, Stop) {
	co := *o
	co.propOnly = true
	if f1.Quantised() || f2.Quantised() {
		co.Refine.MaxPropWork *= quantisedPropWork
	}
	rp := propagationOnly(rb, &co)
	rp.reason = ""
	rp.next, rp.prior = splitHint(f1, f2, &root, rb, &co), rb.prior(&root)
	root.next, root.within = rp.next, rp.prior
	pieces, stop := refine(ctx, f1, f2, root, rp, &co, ob, c)
	return settleSDP(ctx, f1, f2, root, pieces, stop, o, ob, c), stop
}

// splitHint returns the coordinate of r to halve next, plus 1, by the
// difference smear of the bounds rb for the outputs of the quantity
// (the interval smear where that has no score); 0 (the widest) when
// neither scores a coordinate that can be halved. For quantised networks
// the smear is that of their lowerings (bounds.LowerPair), whose layers
// rb's are: without them it has no score, and the widest coordinate is
// halved, which on int8 MLPs of 4-8 inputs takes more pieces for a bound.
func splitHint(f1, f2 *nn.Network, r *region, rb *regionBounds, o *task) int {
	pb := rb.prior(r)
	if pb == nil {
		return 0
	}
	ks := weighed(o.q, f1.OutputSize())
	lo, hi := r.Box1.Lo, r.Box1.Hi
	if f1.Quantised() || f2.Quantised() {
		// pb's layers are those of the lowered networks.
		l1, l2, err := bounds.LowerPair(f1, f2, o.RequantSlack)
		if err != nil {
			return 0
		}
		f1, f2 = l1.Net, l2.Net
	}
	if s := smear.Difference(f1, f2, pb, ks, lo, hi); s != nil {
		if i := smear.ArgmaxHalvable(s, lo, hi); i >= 0 {
			return i + 1
		}
	}
	if s := smear.Interval([2]*nn.Network{f1, f2}, pb, ks, lo, hi); s != nil {
		if i := smear.ArgmaxHalvable(s, lo, hi); i >= 0 {
			return i + 1
		}
	}
	return 0
}
