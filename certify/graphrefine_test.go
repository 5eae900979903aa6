package certify

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nnbound/nnbound/spec"
)

// TestGraphStallLimit checks that the splits allowed without gain fall
// with the number of inputs that vary.
func TestGraphStallLimit(t *testing.T) {
	for _, c := range []struct{ n, want int }{{1, 16}, {16, 16}, {17, 15}, {64, 4}, {256, 1}, {257, 0}, {3072, 0}} {
		if got := graphStallLimit(c.n); got != c.want {
			t.Errorf("graphStallLimit(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestBoundGraphBudget checks that a budget smaller than two passes
// stops the refinement after the first pass with a certificate that says
// so, and that without a budget the refinement says why it stopped.
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
	if !c.Certified || !c.TimeBudgetHit || len(c.Pieces) != 0 || !strings.Contains(c.Reason, "time budget") {
		t.Fatalf("1 ns budget: certified %v, budget hit %v, %d pieces, reason %q", c.Certified, c.TimeBudgetHit, len(c.Pieces), c.Reason)
	}
	if n := strings.Count(log.String(), "certify: graph pass"); n != 1 {
		t.Errorf("log has %d passes, want 1:\n%s", n, log.String())
	}
	o.Refine.TimeBudget, o.Log = 0, nil
	c, err = BoundGraph(context.Background(), g1, g2, in, spec.Quantity{Norm: spec.Norm2}, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.TimeBudgetHit || !strings.HasPrefix(c.Reason, "refinement stopped") {
		t.Fatalf("no budget: budget hit %v, reason %q", c.TimeBudgetHit, c.Reason)
	}
	t.Logf("no budget: bound %.4g, observed %.4g, %d pieces: %s", c.Bound, c.ObservedError, len(c.Pieces), c.Reason)
}
