package certify

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Stop says why the refinement of the input set ended (Certificate.Stopped).
type Stop int

// The reasons a refinement stops.
const (
	// StopNone: there was no refinement (one piece asked for, a QC set or
	// a method that does not split).
	StopNone Stop = iota
	// StopTarget: bound / observed error reached Refine.TargetRatio.
	StopTarget
	// StopNoGain: the last doublings of the pieces each shrank the gap
	// bound - observed error by less than Refine.MinGain (gainRule).
	StopNoGain
	// StopCap: the next split would certify more than Refine.MaxPieces
	// pieces.
	StopCap
	// StopBudget: Refine.TimeBudget ran out (the bound then depends on
	// the machine's speed).
	StopBudget
	// StopExhausted: no piece can be split further.
	StopExhausted
	// StopCancelled: the context was cancelled.
	StopCancelled
	// StopCostly: no cap of pieces was set and the next split would take
	// the work of the pieces bounded by SDPs over Refine.MaxSDPWork, or
	// of those bounded by propagation alone over Refine.MaxPropWork.
	StopCostly
	// StopEnough: the bound reached Refine.Enough, the bound asked for.
	StopEnough
)

// settled returns stop, the reason takeBatch gave for taking no piece,
// checked against the bound of all the pieces: takeBatch looks at the
// largest bound of the pieces still to split, while pieces that cannot
// be split (final) may keep the bound above TargetRatio times the
// observed error or above Enough. A StopTarget or StopEnough that the
// bound does not reach becomes StopExhausted (what is above cannot be
// split further).
func settled(stop Stop, bound, observed float64, r *Refine) Stop {
	if stop != StopTarget && stop != StopEnough {
		return stop
	}
	if e := r.ending(bound, observed); e != StopNone {
		return e
	}
	return StopExhausted
}

// settlePieces is the most pieces the cheap refinement settles to past
// the target ratio (Refine.SettleWork): on a box of at most
// MaxSplitInputs free coordinates, about two halvings of each.
const settlePieces = 1024

// settleTask returns the copy of o with which the cheap refinement goes
// on past the target ratio or the work budget (from: StopTarget or
// StopCostly; Refine.SettleWork): a hundredth of the target's distance
// from 1 as the target (1.001 for 1.1), and SettleWork in place of
// MaxPropWork. Past the work budget its pieces halve their widest
// coordinate (relative to the root's, region.split), not the smear's,
// and skip the smear (splitHint): there the bound is still above the
// target ratio, and at 484 pieces of ACAS Xu 4/5_1 it was 9 % above
// d6b939f's with the smear, 2.6 % below with the widest; past the target
// the smear was the tighter (3/3_5, 3/2_6;
// docs/notes/2026-12-acasxu-settle.md).
func settleTask(o *task, from Stop) *task {
	so := *o
	so.widest = from == StopCostly
	so.Refine.TargetRatio = 1 + (o.Refine.TargetRatio-1)/100
	so.Refine.MaxPropWork = o.Refine.SettleWork
	so.settling = true
	return &so
}

// settledStop returns why a refinement that settled past the target
// ratio or the work budget (from: StopTarget or StopCostly) ended, stop
// being what ended the settling: StopTarget (or StopEnough) for a bound
// within the target, also when the time budget cut the settling (the
// target was reached before it), unless a cancellation did; past the
// work budget, StopCostly for the pieces settlePieces (no cap the caller
// set).
func settledStop(from, stop Stop, bound, observed float64, r *Refine) Stop {
	if stop == StopCancelled {
		return stop
	}
	if e := r.ending(bound, observed); e != StopNone {
		return e
	}
	if from == StopCostly && stop == StopCap {
		return StopCostly
	}
	return stop
}

// costly reports whether the next split, taken to cost what the last
// did, would take the work of the pieces over MaxSDPWork or MaxPropWork,
// which apply with no cap of pieces only.
func (r *Refine) costly(w work) bool {
	if r.MaxPieces != 0 {
		return false
	}
	return r.MaxSDPWork > 0 && w.sdp+w.lastSDP > r.MaxSDPWork || r.MaxPropWork > 0 && w.prop+w.lastProp > r.MaxPropWork
}

// maxPieces returns the cap of pieces (MaxPieces, or no cap for 0).
func (r *Refine) maxPieces() int {
	if r.MaxPieces == 0 {
		return math.MaxInt
	}
	return r.MaxPieces
}

// propWork returns the estimated work of bound propagation on one piece
// r, in the units of sdpWork: the sub-boxes of its split (Options.Split)
// times the parameters and the hidden neurons of both networks (each
// neuron's symbolic bound is back-substituted through the parameters)
// times 8 (the optimised slopes' steps).
func propWork(f1, f2 *nn.Network, r *region, o *task) float64 {
	hidden := 0
	for _, f := range [2]*nn.Network{f1, f2} {
		for _, n := range f.HiddenSizes() {
			hidden += n
		}
	}
	return 8 * float64(max(1, o.splitFor(r.Box1))) * float64(f1.NumParams()+f2.NumParams()) * float64(hidden)
}

// MaxRefineInputs is the largest number of free input coordinates of a
// box that Bound splits when Refine.MaxPieces is 0 (no cap) and the
// second input is not quantised (whose cells are worth splitting): each
// split halves one coordinate, and halving a few of hundreds buys nothing
// (HAR, MNIST: docs/tuning.md). Such a box stops at the first bound
// (StopNoGain); a cap (MaxPieces > 1) splits it anyway.
const MaxRefineInputs = 64

// sdpWork returns the work of the SDP solve of r, in the units of
// Refine.MaxSDPWork: iterations times the cube of the variables (an
// interior-point iteration forms and factors a Schur complement of that
// order).
func sdpWork(r regionResult) float64 {
	v := float64(r.vars)
	return float64(r.iters) * v * v * v
}

var stopNames = [...]string{"none", "target reached", "nothing left to gain", "piece cap", "time budget", "nothing left to split", "cancelled",
	"work budget of the pieces spent", "bound asked for reached"}

// String returns the reason in words ("target reached", ...).
func (s Stop) String() string {
	if s < 0 || int(s) >= len(stopNames) {
		return fmt.Sprintf("Stop(%d)", int(s))
	}
	return stopNames[s]
}

// Progress is the state of a refinement after a round (Options.Progress).
type Progress struct {
	// Bound is the certified bound so far, Observed the largest error
	// found so far.
	Bound, Observed float64
	// Pieces is the number of pieces the input set is split into, Solves
	// the number of pieces certified (SDPs or bound propagations).
	Pieces, Solves int
}

// gainRule is the clock-independent end of the refinement: at every
// doubling of the pieces certified, the gap bound - observed error should
// have shrunk by Refine.MinGain since the last doubling; after patience
// doublings in a row that did not, refining stops (StopNoGain). Halving
// the widest coordinate gains little until every free coordinate has been
// halved, so on a box of d <= MaxSplitInputs free coordinates the first
// check waits for about d splits, and two misses in a row end it; on a
// box of more (HAR, MNIST), where halving a few of many coordinates buys
// nothing, one miss ends it.
type gainRule struct {
	next     int     // the solves at which to check next
	gap      float64 // the gap at the last check
	misses   int     // doublings in a row that gained too little
	patience int
}

// newGainRule starts the rule after the root, whose certificate has used
// solves pieces, with the gap of the root, on a box of free free
// coordinates.
func newGainRule(solves int, gap float64, free int) gainRule {
	g := gainRule{next: 2 * max(1, solves), gap: gap, patience: 1}
	if free <= MaxSplitInputs {
		g.next, g.patience = max(g.next, 1+2*free), 2
	}
	return g
}

// stop reports whether refining should end with solves pieces certified
// and the gap now.
func (g *gainRule) stop(solves int, gap float64, r *Refine) bool {
	if solves < g.next {
		return false
	}
	// An infinite gap (no bound yet) always goes on.
	if math.IsInf(gap, 1) || gap <= (1-r.MinGain)*g.gap {
		g.misses = 0
	} else {
		g.misses++
	}
	g.next, g.gap = 2*solves, gap
	return g.misses >= g.patience
}

// freeCoords returns the number of coordinates of positive width of the
// region's boxes (of both for independent inputs).
func (r *region) freeCoords() int {
	n := 0
	for i := range r.Box1.Lo {
		if r.Box1.Lo[i] < r.Box1.Hi[i] {
			n++
		}
		if r.Pairing == spec.Independent && r.Box2.Lo[i] < r.Box2.Hi[i] {
			n++
		}
	}
	return n
}

// currentBound returns the bound of the pieces done and on h so far: the
// largest piece bound, or +Inf when a piece has none; root, the bound of
// the whole set, when smaller.
func currentBound(root float64, done []piece, h pieceHeap) float64 {
	b := 0.0
	for _, ps := range [2][]piece{done, h} {
		for _, p := range ps {
			if !p.ok {
				return root
			}
			b = max(b, p.bound)
		}
	}
	return min(root, b)
}

// progress calls Options.Progress, if set, with the state of a
// refinement.
func (o *task) progress(bound float64, ob *observation, pieces, solves int) {
	if o.Progress != nil {
		o.Progress(Progress{Bound: bound, Observed: ob.err, Pieces: pieces, Solves: solves})
	}
}
