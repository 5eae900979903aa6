package certify

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// cutCases are the ways a run is cut before it starts: a context already
// cancelled, and a time budget of a nanosecond (already past when the
// first pass ends); with the reason the certificate must give.
var cutCases = []struct {
	name   string
	cancel bool
	budget time.Duration
	want   Stop
}{
	{"cancelled", true, 0, StopCancelled},
	{"budget 1 ns", false, time.Nanosecond, StopBudget},
}

// cutContext returns a context cancelled already when cancel is set, the
// background otherwise.
func cutContext(cancel bool) context.Context {
	if !cancel {
		return context.Background()
	}
	ctx, stop := context.WithCancel(context.Background())
	stop()
	return ctx
}

// TestInfBoundCut checks that the inf-norm of chains (one certificate
// per output, infBound) cut before any output is refined still certifies
// the first pass's bound, says why it stopped, and holds at sampled
// inputs; and that uncut, Bounded counts the pieces of every output.
func TestInfBoundCut(t *testing.T) {
	f1 := randnet.Paper(5, 3, 2, 12, 3)
	fb := quantise.Format{FracBits: 3}
	f2, err := quantise.Network(f1, quantise.Options{Weights: fb, Biases: fb})
	if err != nil {
		t.Fatal(err)
	}
	box := spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}
	in := spec.Inputs{Box: box, Pairing: spec.SameInput}
	q := spec.Quantity{Norm: spec.NormInf}
	o := DefaultOptions()
	o.Refine.TimeBudget = 0
	whole, err := Bound(context.Background(), f1, f2, in, q, o)
	if err != nil {
		t.Fatal(err)
	}
	if !whole.Certified() || whole.Stopped == StopBudget || whole.Stopped == StopCancelled || whole.Bounded < f1.OutputSize() {
		t.Fatalf("uncut: certified %v, stopped by %v, %d pieces bounded for %d outputs", whole.Certified(), whole.Stopped, whole.Bounded, f1.OutputSize())
	}
	for _, cc := range cutCases {
		o.Refine.TimeBudget = cc.budget
		c, err := Bound(cutContext(cc.cancel), f1, f2, in, q, o)
		if err != nil {
			t.Fatalf("%s: %v", cc.name, err)
		}
		if !c.Certified() || c.Stopped != cc.want || c.TimeBudgetHit != (cc.want == StopBudget) || len(c.Outputs) != f1.OutputSize() {
			t.Fatalf("%s: certified %v (%s), stopped by %v, budget hit %v, %d output bounds", cc.name, c.Certified(), c.Reason, c.Stopped, c.TimeBudgetHit, len(c.Outputs))
		}
		checkSampled(t, cc.name, f1, f2, box, q, c.Bound)
		t.Logf("%s: bound %.4g (uncut %.4g), %d pieces bounded (uncut %d)", cc.name, c.Bound, whole.Bound, c.Bounded, whole.Bounded)
	}
}

// TestBoundGraphCut checks that a graph's certificate cut before its full
// pass (a context already cancelled, a budget of a nanosecond) is the
// cheap first pass's: certified, never an error, with the reason it
// stopped, and no smaller than the error at sampled inputs or the full
// pass's bound.
func TestBoundGraphCut(t *testing.T) {
	g1, g2 := residualGraph(t, 11)
	box := spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}
	in := spec.Inputs{Box: box, Pairing: spec.SameInput}
	for _, q := range []spec.Quantity{{Norm: spec.Norm2}, {Norm: spec.NormInf}} {
		o := DefaultOptions()
		o.Refine.TimeBudget, o.Refine.MaxPieces = 0, 1
		full, err := BoundGraph(context.Background(), g1, g2, in, q, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, cc := range cutCases {
			o.Refine.TimeBudget = cc.budget
			c, err := BoundGraph(cutContext(cc.cancel), g1, g2, in, q, o)
			if err != nil {
				t.Fatalf("%v, %s: %v", q, cc.name, err)
			}
			if !c.Certified() || c.Stopped != cc.want || c.TimeBudgetHit != (cc.want == StopBudget) || c.Bound < full.Bound {
				t.Fatalf("%v, %s: certified %v (%s), stopped by %v, budget hit %v, bound %v below the full pass's %v",
					q, cc.name, c.Certified(), c.Reason, c.Stopped, c.TimeBudgetHit, c.Bound, full.Bound)
			}
			for x := range sampledInputs(box, 2000) {
				y1, _ := g1.Eval(x)
				y2, _ := g2.Eval(x)
				if e := q.Measure(y1, y2); e > c.Bound {
					t.Fatalf("%v, %s: error %v at %v above the bound %v", q, cc.name, e, x, c.Bound)
				}
			}
		}
	}
}

// checkSampled fails t if the error q of f1 - f2 at a sampled input of
// box (or at a corner) exceeds bound.
func checkSampled(t *testing.T, name string, f1, f2 *nn.Network, box spec.Box, q spec.Quantity, bound float64) {
	t.Helper()
	for x := range sampledInputs(box, 2000) {
		y1, err := f1.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		y2, err := f2.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		if e := q.Measure(y1, y2); e > bound {
			t.Fatalf("%s: error %v at %v above the bound %v", name, e, x, bound)
		}
	}
}

// sampledInputs yields the corners of box and n seeded uniform points of
// it.
func sampledInputs(box spec.Box, n int) func(func([]float64) bool) {
	return func(yield func([]float64) bool) {
		d := box.Dim()
		for m := range 1 << d {
			x := make([]float64, d)
			for i := range x {
				x[i] = box.Lo[i]
				if m>>i&1 == 1 {
					x[i] = box.Hi[i]
				}
			}
			if !yield(x) {
				return
			}
		}
		rng := rand.New(rand.NewPCG(7, 8))
		for range n {
			x := make([]float64, d)
			for i := range x {
				x[i] = box.Lo[i] + rng.Float64()*(box.Hi[i]-box.Lo[i])
			}
			if !yield(x) {
				return
			}
		}
	}
}

// TestInfProgress checks that an output's progress reports the whole
// inf-norm: the largest bound of the outputs done, of the first pass's
// for those to come and of the output's own, the largest error found,
// and the pieces of the outputs done added.
func TestInfProgress(t *testing.T) {
	var got Progress
	seen := observation{err: 0.7}
	report := infProgress(func(p Progress) { got = p }, []float64{1, 3}, []float64{2}, 5, &seen)
	report(Progress{Bound: 0.5, Observed: 0.2, Pieces: 4, Solves: 6})
	if want := (Progress{Bound: 3, Observed: 0.7, Pieces: 4, Solves: 11}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	report(Progress{Bound: 4, Observed: 0.9, Pieces: 1, Solves: 1})
	if want := (Progress{Bound: 4, Observed: 0.9, Pieces: 1, Solves: 6}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
