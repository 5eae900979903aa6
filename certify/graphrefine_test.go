package certify

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestBoundGraphBudget checks that a budget smaller than two passes
// stops the refinement after the first pass with a certificate that says
// so, that without a budget the refinement says why it stopped, and that
// a wide box is not split.
func TestBoundGraphBudget(t *testing.T) {
	g1, g2 := residualGraph(t, 11)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}, Pairing: spec.SameInput}
	o := DefaultOptions()
	o.Refine.TimeBudget = time.Nanosecond
	var log bytes.Buffer
	o.Log = &log
	c, err := BoundGraph(context.Background(), g1, g2, in, spec.Quantity{Norm: spec.Norm2}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Certified() || !c.TimeBudgetHit || len(c.Pieces) != 0 || c.Stopped != StopBudget {
		t.Fatalf("1 ns budget: certified %v, budget hit %v, %d pieces, stopped %v", c.Certified(), c.TimeBudgetHit, len(c.Pieces), c.Stopped)
	}
	if n := strings.Count(log.String(), "certify: graph pass"); n != 1 {
		t.Errorf("log has %d passes, want 1:\n%s", n, log.String())
	}
	o.Refine.TimeBudget, o.Log = 0, nil
	c, err = BoundGraph(context.Background(), g1, g2, in, spec.Quantity{Norm: spec.Norm2}, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.TimeBudgetHit || c.Stopped == StopNone || c.Stopped == StopBudget {
		t.Fatalf("no budget: budget hit %v, stopped %v", c.TimeBudgetHit, c.Stopped)
	}
	t.Logf("no budget: bound %.4g, observed %.4g, %d pieces: %v", c.Bound, c.ObservedError, len(c.Pieces), c.Stopped)
	// A box of more free inputs than MaxRefineInputs is not split.
	g1, g2 = wideGraphs(t)
	wide := spec.Box{Lo: make([]float64, MaxRefineInputs+1), Hi: make([]float64, MaxRefineInputs+1)}
	for i := range wide.Hi {
		wide.Hi[i] = 1
	}
	c, err = BoundGraph(context.Background(), g1, g2, spec.Inputs{Box: wide, Pairing: spec.SameInput}, spec.Quantity{Norm: spec.Norm2}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Pieces) != 0 || (c.Stopped != StopNoGain && c.Stopped != StopTarget) {
		t.Fatalf("%d inputs: %d pieces, stopped %v", wide.Dim(), len(c.Pieces), c.Stopped)
	}
}

// wideGraphs returns the graphs of a random (MaxRefineInputs+1)-8-2 ReLU
// chain and its FB = 4 copy.
func wideGraphs(t *testing.T) (g1, g2 *nn.Graph) {
	t.Helper()
	g1 = randnet.Paper(5, MaxRefineInputs+1, 1, 8, 2).Graph()
	return g1, fixedCopy(t, g1)
}

// TestBoundGraphNoGain checks that the refinement of a graph's bound
// ends when splitting stops paying, by the gain rule that Bound's
// refinement uses: a 1-input ReLU network against its int8 copy, with no
// time budget, no cap of pieces and a target ratio it cannot reach,
// stops with StopNoGain after the same number of pieces at every run (a
// count, not a time); no piece's bound is above the whole set's; and the
// bound holds at sampled inputs. (On 2 inputs splitting pays for 80,000
// pieces since a quantiser on an interval has its exact image: too long
// for a test.)
func TestBoundGraphNoGain(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	f := boundstest.Network(rng, []int{1, 8, 8, 2}, 1, nn.Activation{Kind: nn.ReLU})
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	r, err := bounds.Calibrate(f, box, bounds.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	fq, err := quantise.Int8(f, r, quantise.Int8Options{Bits: 8})
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Refine.TimeBudget, o.Refine.MaxPieces, o.Refine.TargetRatio = 0, 0, 1
	in, q := spec.Inputs{Box: box, Pairing: spec.SameInput}, spec.Quantity{Norm: spec.Norm2}
	var pieces [2]int
	for run := range pieces {
		c, err := BoundGraph(context.Background(), f.Graph(), fq.Graph(), in, q, o)
		if err != nil {
			t.Fatal(err)
		}
		if c.Stopped != StopNoGain || !c.Certified() || len(c.Pieces) < 2 || len(c.Pieces) > 4096 {
			t.Fatalf("stopped %v after %d pieces (certified %v), want %v after 2 to 4096", c.Stopped, len(c.Pieces), c.Certified(), StopNoGain)
		}
		for _, p := range c.Pieces {
			if p.Bound > c.RootBound {
				t.Fatalf("a piece's bound %v is above the whole set's %v", p.Bound, c.RootBound)
			}
		}
		for range 500 {
			x := boundstest.Uniform(rng, box.Lo, box.Hi)
			y1, _ := f.Eval(x)
			y2, _ := fq.Eval(x)
			if e := q.Measure(y1, y2); e > c.Bound {
				t.Fatalf("error %v at %v above the bound %v", e, x, c.Bound)
			}
		}
		pieces[run] = len(c.Pieces)
		t.Logf("bound %.4g, observed %.4g, root %.4g: %v after %d pieces", c.Bound, c.ObservedError, c.RootBound, c.Stopped, len(c.Pieces))
	}
	if pieces[0] != pieces[1] {
		t.Errorf("the runs stopped after %d and %d pieces", pieces[0], pieces[1])
	}
}
