package certify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestTimeBudgetHit checks that a certificate says when the time budget
// stopped the splitting: never without a budget, always with a budget of
// a nanosecond on an instance that splits without one.
func TestTimeBudgetHit(t *testing.T) {
	q := quantise.Format{FracBits: 2}
	for seed := uint64(1); seed <= 8; seed++ {
		f1 := randnet.Paper(seed, 1, 3, 10, 1)
		f2, err := quantise.Network(f1, quantise.Options{Weights: q, Biases: q})
		if err != nil {
			t.Fatal(err)
		}
		o := testTask()
		o.in.Pairing, o.in.Quant, o.Refine.TimeBudget = spec.QuantisedInput, q, 0
		o.Refine.TargetRatio, o.Refine.MaxPieces = 1, 5
		c, err := o.bound(context.Background(), f1, f2, paperBox)
		if err != nil {
			t.Fatal(err)
		}
		if c.TimeBudgetHit || c.Stopped == StopBudget {
			t.Fatalf("seed %d: no budget, but TimeBudgetHit %v, stopped by %v", seed, c.TimeBudgetHit, c.Stopped)
		}
		if len(c.Pieces) < 2 {
			continue // not split: the budget would not be consulted
		}
		o.Refine.TimeBudget = time.Nanosecond
		c, err = o.bound(context.Background(), f1, f2, paperBox)
		if err != nil {
			t.Fatal(err)
		}
		if !c.TimeBudgetHit || !c.Certified() || c.Stopped != StopBudget {
			t.Errorf("seed %d: budget of 1 ns: TimeBudgetHit %v, certified %v, stopped by %v", seed, c.TimeBudgetHit, c.Certified(), c.Stopped)
		}
		return
	}
	t.Fatal("no instance split without a budget")
}

// TestBudgetedSays checks that an SDP the time budget stops says how far
// it had got: not built (a deadline already past while the region is
// still assembling), or stopped in its solve with the size it was built
// at.
func TestBudgetedSays(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	res := budgeted(context.Background(), time.Now().Add(-time.Second), func(context.Context, *sdpProgress) regionResult {
		<-release // still assembling when the budget ends
		return regionResult{}
	})
	if !res.budgetHit || res.status != Cancelled || res.size != 0 || !strings.Contains(res.reason, "not built") {
		t.Errorf("during the build: budget hit %v, status %v, size %d, reason %q", res.budgetHit, res.status, res.size, res.reason)
	}
	var pr sdpProgress
	pr.built(98, 391, time.Second)
	res = pr.stopped(3 * time.Second)
	if !res.budgetHit || res.size != 98 || res.vars != 391 || res.spent.Build != time.Second || res.spent.Solve != 2*time.Second ||
		!strings.Contains(res.reason, "order 98, 391 variables") {
		t.Errorf("during the solve: budget hit %v, size %d, variables %d, spent %+v, reason %q", res.budgetHit, res.size, res.vars, res.spent, res.reason)
	}
}
