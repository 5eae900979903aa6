package certify

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/spec"
)

// TestGainRule checks when the refinement ends for lack of gain: on a
// wide box at the first doubling that shrinks the gap too little, on a
// box of few coordinates only after about one split per coordinate and
// two such doublings in a row.
func TestGainRule(t *testing.T) {
	r := Refine{MinGain: 0.05}
	type step struct {
		solves int
		gap    float64
		stop   bool
	}
	cases := []struct {
		name  string
		free  int
		steps []step
	}{
		{"wide box, no gain", 561, []step{{3, 0.99, true}}},
		{"wide box, gain", 561, []step{{3, 0.9, false}, {5, 0.5, false}, {7, 0.88, true}}},
		{"narrow box waits", 4, []step{{3, 1, false}, {7, 1, false}, {9, 1, false}, {19, 1, true}}},
		{"narrow box, a gain resets", 4, []step{{9, 1, false}, {19, 0.9, false}, {39, 0.9, false}, {79, 0.8, false}}},
		{"no bound yet", 561, []step{{3, math.Inf(1), false}}},
	}
	for _, tc := range cases {
		g := newGainRule(1, 1, tc.free)
		for i, s := range tc.steps {
			if got := g.stop(s.solves, s.gap, &r); got != s.stop {
				t.Errorf("%s: step %d (%d solves, gap %v): stop %v, want %v", tc.name, i, s.solves, s.gap, got, s.stop)
			}
		}
	}
}

// TestStopString checks that every reason has a name.
func TestStopString(t *testing.T) {
	for s := StopNone; s <= StopEnough; s++ {
		if n := s.String(); n == "" || n == fmt.Sprintf("Stop(%d)", int(s)) {
			t.Errorf("Stop(%d) has no name: %q", int(s), n)
		}
	}
}

// TestSolveLarge checks that Refine.SolveLarge (an explicit --method
// sdp) lifts the size rules of a time budget, and only it.
func TestSolveLarge(t *testing.T) {
	o := task{Options: DefaultOptions()}
	if sdpTooLarge(MaxBudgetOrder+1, &o) == "" || sdpTooMany(MaxBudgetVariables+1, &o) == "" {
		t.Fatal("an SDP over the size limits is attempted under the default budget")
	}
	o.Refine.SolveLarge = true
	if why := sdpTooLarge(10*MaxBudgetOrder, &o) + sdpTooMany(10*MaxBudgetVariables, &o); why != "" {
		t.Errorf("SolveLarge: skipped: %s", why)
	}
}

// TestWideBoxNotSplit checks that a box of more than MaxRefineInputs free
// coordinates is not split by default (halving one of them buys
// nothing), and is when a cap of pieces is given.
func TestWideBoxNotSplit(t *testing.T) {
	n := MaxRefineInputs + 1
	f1, f2 := randnet.Paper(3, n, 1, 4, 1), randnet.Paper(4, n, 1, 4, 1)
	box := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range n {
		box.Lo[i], box.Hi[i] = -1, 1
	}
	in := spec.Inputs{Box: box, Pairing: spec.SameInput}
	opts := DefaultOptions()
	opts.Refine.TimeBudget, opts.Samples = 0, 100
	c, err := Bound(context.Background(), f1, f2, in, spec.Quantity{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Certified() || len(c.Pieces) != 0 || (c.Stopped != StopNoGain && c.Stopped != StopTarget) {
		t.Fatalf("default: certified %v, %d pieces, stopped by %v; want the first bound alone", c.Certified(), len(c.Pieces), c.Stopped)
	}
	if c.Stopped == StopTarget {
		t.Skip("the first bound is within the target: nothing to split")
	}
	opts.Refine.MaxPieces = 5
	c, err = Bound(context.Background(), f1, f2, in, spec.Quantity{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Certified() || len(c.Pieces) < 2 {
		t.Errorf("--max-pieces 5: certified %v, %d pieces; want a split", c.Certified(), len(c.Pieces))
	}
}

// TestEnough checks Refine.Enough: with a bound asked for above bound
// propagation's, no SDP is solved and the refinement stops at the
// target; with none, the same pair gets its SDP; the bound is certified
// and at most Enough either way.
func TestEnough(t *testing.T) {
	f1 := randnet.Paper(1, 2, 2, 8, 1)
	f2 := randnet.Paper(2, 2, 2, 8, 1)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}, Pairing: spec.SameInput}
	o := DefaultOptions()
	o.Refine.TimeBudget = 0 // every SDP solved unless Enough skips it
	full, err := Bound(context.Background(), f1, f2, in, spec.Quantity{Norm: spec.Norm2}, o)
	if err != nil {
		t.Fatal(err)
	}
	if full.SDP.Iterations == 0 {
		t.Fatalf("without Enough no SDP was solved (%v): the test needs one", full.SDPSkipped)
	}
	o.Refine.Enough = 2 * full.IntervalBound
	c, err := Bound(context.Background(), f1, f2, in, spec.Quantity{Norm: spec.Norm2}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Certified() || c.SDP.Iterations != 0 || c.SDPSkipped.Why != SkipClose || !(c.Bound <= o.Refine.Enough) {
		t.Errorf("Enough %v: certified %v, %d SDP iterations, skip %v, bound %v", o.Refine.Enough, c.Certified(), c.SDP.Iterations, c.SDPSkipped, c.Bound)
	}
}

// TestEnoughOverFinalPieces checks that a piece that cannot be split,
// with a bound above Refine.Enough, keeps the refinement from saying the
// bound asked for was reached when the pieces still to split are below
// it (takeBatch passes the final piece and stops at the next).
func TestEnoughOverFinalPieces(t *testing.T) {
	root := region{Box1: spec.Box{Lo: []float64{0}, Hi: []float64{1}}, Pairing: spec.SameInput}
	root.Box2 = cloneBox(root.Box1)
	at := func(lo, hi, bound float64) piece {
		b := spec.Box{Lo: []float64{lo}, Hi: []float64{hi}}
		return piece{region: region{Box1: b, Box2: cloneBox(b), Pairing: spec.SameInput}, bound: bound, ok: true, cased: true}
	}
	h := pieceHeap{at(0.5, math.Nextafter(0.5, 1), 5), at(0, 0.25, 2)} // the first cannot be split
	o := task{Options: DefaultOptions(), timing: &Timing{}}
	o.Refine.Enough, o.Refine.TimeBudget = 3, 0
	ob := observation{err: 1}
	batch, final, stop := takeBatch(context.Background(), nil, nil, &h, root, &o, &ob, &Certificate{}, work{})
	if len(batch) != 0 || len(final) != 1 || stop != StopEnough {
		t.Fatalf("takeBatch: %d halvings, %d final, stop %v; want 0, 1, %v", len(batch), len(final), stop, StopEnough)
	}
	b := currentBound(math.Inf(1), final, h)
	if got := settled(stop, b, ob.err, &o.Refine); got != StopExhausted {
		t.Errorf("bound %v above Enough %v: stop %v, want %v", b, o.Refine.Enough, got, StopExhausted)
	}
	if got := settled(StopEnough, 2.5, ob.err, &o.Refine); got != StopEnough {
		t.Errorf("bound 2.5 at most Enough 3: stop %v, want %v", got, StopEnough)
	}
}

// TestSettledStop checks the reason of a refinement that settled past
// the target or the work budget: the target, also when the clock cut the
// settling (the target was reached before it), but a cancellation is
// reported as one; past the work budget, the work budget for the pieces
// settlePieces, whatever else ended it.
func TestSettledStop(t *testing.T) {
	r := Refine{TargetRatio: 1.1}
	for _, c := range []struct {
		from, stop Stop
		ratio      float64
		want       Stop
	}{
		{StopTarget, StopBudget, 1.05, StopTarget},
		{StopTarget, StopCap, 1.05, StopTarget},
		{StopTarget, StopCancelled, 1.05, StopCancelled},
		{StopCostly, StopCostly, 1.2, StopCostly},
		{StopCostly, StopCap, 1.2, StopCostly},
		{StopCostly, StopBudget, 1.2, StopBudget},
		{StopCostly, StopCancelled, 1.05, StopCancelled},
		{StopCostly, StopCap, 1.05, StopTarget},
	} {
		if got := settledStop(c.from, c.stop, c.ratio, 1, &r); got != c.want {
			t.Errorf("settledStop(%v, %v) at ratio %v = %v, want %v", c.from, c.stop, c.ratio, got, c.want)
		}
	}
}

// TestMaxPiecesCountsPieces checks that Refine.MaxPieces caps the pieces
// bounded (Certificate.Bounded: the root, then two per split), not the
// SDP solves, which the cut rounds of an int8 pair's root SDP add to: a
// root bounded once, whatever its solves, is split under a cap of 3 and
// not under a cap of 2.
func TestMaxPiecesCountsPieces(t *testing.T) {
	f1, f2 := randnet.Paper(1, 2, 2, 8, 1), randnet.Paper(2, 2, 2, 8, 1)
	box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
	in := spec.Inputs{Box: box, Pairing: spec.SameInput}
	for _, solves := range []int{1, 15} {
		for _, cap := range []int{2, 3} {
			o := &task{Options: DefaultOptions(), in: in}
			o.Refine.MaxPieces, o.Refine.TimeBudget = cap, 0
			root := rootRegion(box, o)
			h := &pieceHeap{{region: root, bound: 1, ok: true}}
			c := &Certificate{Bounded: 1, SDP: SDPStats{Solves: solves}}
			batch, _, stop := takeBatch(context.Background(), f1, f2, h, root, o, &observation{}, c, work{})
			if split := len(batch) == 1; split != (cap == 3) || split == (stop == StopCap) {
				t.Errorf("root of %d solves, cap %d: %d split, stopped by %v", solves, cap, len(batch), stop)
			}
		}
	}
}

// TestSettleTaskWidest checks the copy of settleTask: the target a
// hundredth as far from 1, SettleWork as the work budget, and the widest
// coordinate halved past the work budget only (past the target the
// smear chooses).
func TestSettleTaskWidest(t *testing.T) {
	o := &task{Options: DefaultOptions()}
	for _, from := range []Stop{StopTarget, StopCostly} {
		so := settleTask(o, from)
		if !so.settling || so.widest != (from == StopCostly) {
			t.Errorf("settleTask from %v: settling %v, widest %v", from, so.settling, so.widest)
		}
		if so.Refine.TargetRatio != 1.001 || so.Refine.MaxPropWork != o.Refine.SettleWork {
			t.Errorf("settleTask from %v: target %v, work %v", from, so.Refine.TargetRatio, so.Refine.MaxPropWork)
		}
	}
	if o.settling || o.widest {
		t.Error("settleTask changed its argument")
	}
}

// TestStopMatchesBoundKept runs Bound on random networks against close
// copies, the same input, with no time budget (the root's SDP solved)
// and an SDP work budget that ends the SDP refinement at once
// (StopCostly), while the cheap refinement, run first, reaches the
// target: the cheap pieces are kept, and the stop must say the target
// was reached, not the SDP refinement's work budget.
func TestStopMatchesBoundKept(t *testing.T) {
	checked := 0
	for seed := range uint64(3) {
		_, f1, f2, box := closePair(t, seed, 47)
		o := DefaultOptions()
		o.Samples = 200
		o.Refine.TimeBudget, o.Refine.SettleWork, o.Refine.MaxSDPWork = 0, 0, 1
		o.Refine.TargetRatio = 1.02
		c, err := Bound(context.Background(), f1, f2, spec.Inputs{Box: box, Pairing: spec.SameInput}, spec.Quantity{}, o)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Certified() || c.ObservedError > c.Bound {
			t.Fatalf("seed %d: certified %v, bound %v, found %v", seed, c.Certified(), c.Bound, c.ObservedError)
		}
		within := c.Bound <= o.Refine.TargetRatio*c.ObservedError
		t.Logf("seed %d: bound %.5g, found %.5g, root %.5g, %d pieces, %v", seed, c.Bound, c.ObservedError, c.RootBound, len(c.Pieces), c.Stopped)
		if within != (c.Stopped == StopTarget) {
			t.Errorf("seed %d: bound / found %.5g (target %v) but stopped %v", seed, c.Bound/c.ObservedError, o.Refine.TargetRatio, c.Stopped)
		}
		if within && c.RootBound > o.Refine.TargetRatio*c.ObservedError {
			checked++ // the root above the target: the SDP refinement ran
		}
	}
	if checked == 0 {
		t.Fatal("no instance reached the target below a root above it: nothing checked")
	}
}

// TestTakeBatchCancelledFirst checks that a signal's stop is said as
// such even when the work budget is spent or the piece cap is reached
// as well (a SIGTERM during a root SDP read "work budget of the pieces
// spent").
func TestTakeBatchCancelledFirst(t *testing.T) {
	box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"work spent", "cap"} {
		o := &task{Options: DefaultOptions(), in: spec.Inputs{Box: box, Pairing: spec.SameInput}, timing: &Timing{}}
		o.Refine.TimeBudget = 0
		w := work{}
		if name == "cap" {
			o.Refine.MaxPieces = 1
		} else {
			o.Refine.MaxPropWork, w.prop = 1, 2
		}
		root := rootRegion(box, o)
		h := &pieceHeap{{region: root, bound: 1, ok: true}}
		batch, _, stop := takeBatch(ctx, nil, nil, h, root, o, &observation{}, &Certificate{Bounded: 1}, w)
		if len(batch) != 0 || stop != StopCancelled {
			t.Errorf("%s: %d halvings, stop %v; want none, %v", name, len(batch), stop, StopCancelled)
		}
	}
}
