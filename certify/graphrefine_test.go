package certify

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
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
