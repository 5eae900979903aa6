package certify

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// cutCases are the ways a run is cut before it starts: a context already
// cancelled, and a time budget of a nanosecond (already past when the
// first pass ends); with the reason the certificate must give, for the
// refinement and for the SDP it did not run.
var cutCases = []struct {
	name   string
	cancel bool
	budget time.Duration
	want   Stop
	skip   Skip
}{
	{"cancelled", true, 0, StopCancelled, SkipCancelled},
	{"budget 1 ns", false, time.Nanosecond, StopBudget, SkipBudget},
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
	f1, f2 := cutPair(t, 3)
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
	checkObservedAt(t, "uncut", f1, f2, whole)
	for _, cc := range cutCases {
		o.Refine.TimeBudget = cc.budget
		c, err := Bound(cutContext(cc.cancel), f1, f2, in, q, o)
		if err != nil {
			t.Fatalf("%s: %v", cc.name, err)
		}
		if !c.Certified() || c.Stopped != cc.want || c.TimeBudgetHit != (cc.want == StopBudget) || len(c.Outputs) != f1.OutputSize() {
			t.Fatalf("%s: certified %v (%s), stopped by %v, budget hit %v, %d output bounds", cc.name, c.Certified(), c.Reason, c.Stopped, c.TimeBudgetHit, len(c.Outputs))
		}
		if c.SDPBound < c.Bound { // +Inf when an output kept its first enclosure above the SDPs'
			t.Fatalf("%s: SDP bound %g below the bound %g", cc.name, c.SDPBound, c.Bound)
		}
		if c.SDPSkipped.Why != cc.skip || c.SDP.Solves != 0 {
			t.Fatalf("%s: SDP skipped %v, %d solves: want %v", cc.name, c.SDPSkipped, c.SDP.Solves, cc.skip)
		}
		if c.Note != rootCutNote(cc.want) {
			t.Fatalf("%s: note %q, want rootCutNote's", cc.name, c.Note)
		}
		checkSampled(t, cc.name, f1, f2, box, q, c.Bound)
		checkObservedAt(t, cc.name, f1, f2, c)
		t.Logf("%s: bound %.4g (uncut %.4g), %d pieces bounded (uncut %d)", cc.name, c.Bound, whole.Bound, c.Bounded, whole.Bounded)
	}
}

// checkObservedAt checks that c's observed error is q's error at the
// inputs it names (the inf-norm's, not one output's).
func checkObservedAt(t *testing.T, name string, f1, f2 *nn.Network, c *Certificate) {
	t.Helper()
	if c.X1 == nil {
		return
	}
	at := errorAt(t, f1, f2, c.X1, c.X2, c.Quantity)
	if math.Abs(at-c.ObservedError) > 1e-12*max(1, at) {
		t.Fatalf("%s: observed error %.17g, but %.17g at its inputs", name, c.ObservedError, at)
	}
}

// cutPair returns a random network of 3 inputs and outputs outputs and
// its copy with weights and biases quantised to 3 fractional bits.
func cutPair(t *testing.T, outputs int) (f1, f2 *nn.Network) {
	f1 = randnet.Paper(5, 3, 2, 12, outputs)
	fb := quantise.Format{FracBits: 3}
	f2, err := quantise.Network(f1, quantise.Options{Weights: fb, Biases: fb})
	if err != nil {
		t.Fatal(err)
	}
	return f1, f2
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
// inf-norm: the largest of the other outputs' bounds so far and the
// output's own, the largest error found, and the pieces of the outputs
// done added.
func TestInfProgress(t *testing.T) {
	var got Progress
	seen := observation{err: 0.7}
	report := infProgress(func(p Progress) { got = p }, []float64{1, 0, 3, 2}, 5, &seen)
	report(Progress{Bound: 0.5, Observed: 0.2, Pieces: 4, Solves: 6})
	if want := (Progress{Bound: 3, Observed: 0.7, Pieces: 4, Solves: 11}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	report(Progress{Bound: 4, Observed: 0.9, Pieces: 1, Solves: 1})
	if want := (Progress{Bound: 4, Observed: 0.9, Pieces: 1, Solves: 6}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestInfBoundDominant checks that the inf-norm of chains refines the
// output with the largest bound and no other: on a pair whose output 1
// differs far more than output 0, output 1's certificate on its own
// (C = e_1) is the inf-norm's, with the same bound and its pieces and
// the first pass's alone bounded besides (output 0 keeps the first
// pass's enclosure, below it, though on its own it would be split); the
// bound holds at sampled inputs.
func TestInfBoundDominant(t *testing.T) {
	f1, f2 := cutPair(t, 2)
	last := f2.Layers[len(f2.Layers)-1].W
	for i := range last.RawMatrix().Cols {
		last.Set(1, i, 1.5*last.At(1, i))
	}
	box := spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}
	in := spec.Inputs{Box: box, Pairing: spec.SameInput}
	o := DefaultOptions()
	o.Refine.TimeBudget = 0
	o.Refine.MaxPieces = 5
	q := spec.Quantity{Norm: spec.NormInf}
	c, err := Bound(context.Background(), f1, f2, in, q, o)
	if err != nil {
		t.Fatal(err)
	}
	var alone [2]*Certificate // each output's certificate on its own
	for j := range alone {
		alone[j], err = Bound(context.Background(), f1, f2, in, spec.Quantity{Norm: spec.NormInf, C: spec.OutputC(2, j)}, o)
		if err != nil {
			t.Fatal(err)
		}
	}
	one := alone[1]
	if !c.Certified() || !one.Certified() || len(c.Outputs) != 2 || !(c.Outputs[0] < c.Outputs[1]) || alone[0].Bounded < 2 {
		t.Fatalf("certified %v and %v (output 1 alone), outputs %v, %d pieces of output 0 alone: want output 1 to dominate, output 0 alone to split",
			c.Certified(), one.Certified(), c.Outputs, alone[0].Bounded)
	}
	t.Logf("bound %.4g, outputs %.4g, %d pieces bounded; alone: %d and %d", c.Bound, c.Outputs, c.Bounded, alone[0].Bounded, one.Bounded)
	if c.Bound != one.Bound || c.Bounded != one.Bounded+1 || c.Stopped != one.Stopped {
		t.Errorf("inf-norm: bound %v, %d pieces bounded, stopped by %v; output 1 alone: %v, %d, %v (want the same, plus the first pass)",
			c.Bound, c.Bounded, c.Stopped, one.Bound, one.Bounded, one.Stopped)
	}
	checkSampled(t, "dominant", f1, f2, box, q, c.Bound)
}

// TestNextOutput checks the order in which infBound certifies the
// outputs on their own: the largest bound first, and none whose bound is
// not above those certified.
func TestNextOutput(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		bounds []float64
		own    []bool
		want   int
	}{
		{[]float64{1, 3, 2}, []bool{false, false, false}, 1},
		{[]float64{1, 3, 2}, []bool{false, true, false}, -1},
		{[]float64{1, 1.5, 2}, []bool{false, true, false}, 2},
		{[]float64{1, 2, 2}, []bool{false, true, false}, -1},
		{[]float64{inf, inf}, []bool{false, false}, 0},
		{[]float64{2, inf}, []bool{true, false}, 1},
		{[]float64{inf, 1}, []bool{true, false}, -1},
		{[]float64{1, 2}, []bool{true, true}, -1},
	} {
		if got := nextOutput(tc.bounds, tc.own); got != tc.want {
			t.Errorf("nextOutput(%v, %v) = %d, want %d", tc.bounds, tc.own, got, tc.want)
		}
	}
}

// TestRootPassCut checks that a chain's certificate cut before its root's
// full pass ends (sdpBound's for the 2-norm and one output's margin,
// intervalBound's for propagation alone) is the first pass's bound:
// certified, never an error, no smaller than the full run's or than the
// error at sampled inputs, with the reason it stopped and nothing refined.
func TestRootPassCut(t *testing.T) {
	f1, f2 := cutPair(t, 3)
	box := spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}
	in := spec.Inputs{Box: box, Pairing: spec.SameInput}
	for _, method := range []Method{MethodSDP, MethodPropagation} {
		for _, q := range []spec.Quantity{{Norm: spec.Norm2}, {Norm: spec.Norm2, C: spec.OutputC(3, 1)}} {
			o := DefaultOptions()
			o.Method, o.Refine.TimeBudget = method, 0
			full, err := Bound(context.Background(), f1, f2, in, q, o)
			if err != nil {
				t.Fatal(err)
			}
			fo := o // the first pass alone
			fo.Method, fo.Bounds, fo.Split = MethodPropagation, bounds.MethodSymbolic, 0
			first, err := Bound(context.Background(), f1, f2, in, q, fo)
			if err != nil {
				t.Fatal(err)
			}
			for _, cc := range cutCases {
				name := fmt.Sprintf("%v, %v, %s", method, q, cc.name)
				o.Refine.TimeBudget = cc.budget
				c, err := Bound(cutContext(cc.cancel), f1, f2, in, q, o)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !c.Certified() || c.Stopped != cc.want || c.TimeBudgetHit != (cc.want == StopBudget) ||
					c.Bound != first.Bound || c.Bound < full.Bound || len(c.Pieces) > 0 || c.SDP.Iterations > 0 {
					t.Fatalf("%s: certified %v (%s), stopped by %v, budget hit %v, bound %v (first pass %v, full run %v), %d pieces, %d SDP iterations",
						name, c.Certified(), c.Reason, c.Stopped, c.TimeBudgetHit, c.Bound, first.Bound, full.Bound, len(c.Pieces), c.SDP.Iterations)
				}
				if c.Bounded != 1 {
					t.Fatalf("%s: %d pieces bounded, want the root's 1", name, c.Bounded)
				}
				if want := map[Method]Skip{MethodSDP: cc.skip}[method]; c.SDPSkipped.Why != want {
					t.Fatalf("%s: SDP skipped %v, want %v", name, c.SDPSkipped, want)
				}
				checkSampled(t, name, f1, f2, box, q, c.Bound)
			}
		}
	}
}

// TestRootPassSame checks that rootPass, given a time budget it does not
// reach, returns boundsOf's bounds bit for bit, on a box that the full
// pass splits and on one it does not (there it reuses the first pass for
// its symbolic tightening), and that it returns the first pass's bounds,
// no tighter than the full pass's, when cut before it.
func TestRootPassSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, inputs := range []int{3, MaxSplitInputs + 1} {
		f1 := randnet.Paper(9, inputs, 2, 12, 3)
		fb := quantise.Format{FracBits: 4}
		f2, err := quantise.Network(f1, quantise.Options{Weights: fb, Biases: fb})
		if err != nil {
			t.Fatal(err)
		}
		box := spec.Box{Lo: make([]float64, inputs), Hi: make([]float64, inputs)}
		for i := range box.Lo {
			box.Lo[i], box.Hi[i] = -rng.Float64(), rng.Float64()
		}
		for _, q := range []spec.Quantity{{Norm: spec.Norm2}, {Norm: spec.Norm2, C: []float64{1, -2, 0}}} {
			o := task{Options: DefaultOptions(), in: spec.Inputs{Box: box, Pairing: spec.SameInput}, q: q, timing: &Timing{}}
			r := rootRegion(box, &o)
			want, err := boundsOf(context.Background(), f1, f2, &r, &o)
			if err != nil {
				t.Fatal(err)
			}
			o.deadline = time.Now().Add(time.Hour)
			got, cut, err := rootPass(context.Background(), f1, f2, &r, &o)
			if err != nil || cut != StopNone {
				t.Fatalf("%d inputs, %v: error %v, cut %v", inputs, q, err, cut)
			}
			if !slices.Equal(got.Output, want.Output) || got.Norm2 != want.Norm2 || (q.C != nil && *got.Margin != *want.Margin) {
				t.Errorf("%d inputs, %v: outputs %v, norm %v, margin %v; boundsOf's %v, %v, %v",
					inputs, q, got.Output, got.Norm2, got.Margin, want.Output, want.Norm2, want.Margin)
			}
			o.deadline = time.Unix(0, 0)
			first, cut, err := rootPass(context.Background(), f1, f2, &r, &o)
			if err != nil || cut != StopBudget {
				t.Fatalf("%d inputs, %v, cut: error %v, cut %v", inputs, q, err, cut)
			}
			if v, w := first.intervalValue(&o), want.intervalValue(&o); !(v >= w) {
				t.Errorf("%d inputs, %v: the first pass's bound %v below the full pass's %v", inputs, q, v, w)
			}
		}
	}
}

// TestJointRootPass checks that the joint inf-norm SDP (Options.InfJoint)
// takes the root pass of rootPass: uncut under a time budget it does not
// reach, the certificate is the one without a budget, bit for bit; cut
// before the full pass ends, it is the first pass's enclosures, certified,
// with the reason it stopped, no SDP run, and no smaller than the uncut
// bound or the error at sampled inputs.
func TestJointRootPass(t *testing.T) {
	f1, f2 := cutPair(t, 3)
	box := spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}
	in := spec.Inputs{Box: box, Pairing: spec.SameInput}
	q := spec.Quantity{Norm: spec.NormInf}
	o := DefaultOptions()
	o.InfJoint, o.Refine.TimeBudget = true, 0
	whole, err := Bound(context.Background(), f1, f2, in, q, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Refine.TimeBudget = time.Hour
	ctx, cancel := context.WithCancel(context.Background()) // a signal that does not come
	defer cancel()
	budgeted, err := Bound(ctx, f1, f2, in, q, o)
	if err != nil {
		t.Fatal(err)
	}
	if !whole.Certified() || whole.SDP.Iterations == 0 || budgeted.Bound != whole.Bound || budgeted.Gammas != whole.Gammas ||
		!slices.Equal(budgeted.Outputs, whole.Outputs) || budgeted.SDP.Iterations != whole.SDP.Iterations || budgeted.Stopped != StopNone {
		t.Fatalf("uncut: bound %v, gammas %v, outputs %v, %d iterations, stopped %v; without a budget %v, %v, %v, %d (certified %v)",
			budgeted.Bound, budgeted.Gammas, budgeted.Outputs, budgeted.SDP.Iterations, budgeted.Stopped,
			whole.Bound, whole.Gammas, whole.Outputs, whole.SDP.Iterations, whole.Certified())
	}
	for _, cc := range cutCases {
		o.Refine.TimeBudget = cc.budget
		c, err := Bound(cutContext(cc.cancel), f1, f2, in, q, o)
		if err != nil {
			t.Fatalf("%s: %v", cc.name, err)
		}
		if !c.Certified() || c.Stopped != cc.want || c.TimeBudgetHit != (cc.want == StopBudget) || c.SDPSkipped.Why != cc.skip ||
			c.SDP.Iterations != 0 || len(c.Outputs) != f1.OutputSize() || c.Bound < whole.Bound || c.Source != MethodPropagation {
			t.Fatalf("%s: certified %v (%s), stopped by %v, budget hit %v, SDP skipped %v, %d iterations, %d output bounds, bound %v (uncut %v), source %v",
				cc.name, c.Certified(), c.Reason, c.Stopped, c.TimeBudgetHit, c.SDPSkipped, c.SDP.Iterations, len(c.Outputs), c.Bound, whole.Bound, c.Source)
		}
		checkSampled(t, cc.name, f1, f2, box, q, c.Bound)
	}
}
