package certify

import (
	"context"
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
		if c.TimeBudgetHit {
			t.Fatalf("seed %d: no budget, but TimeBudgetHit", seed)
		}
		if len(c.Pieces) < 2 {
			continue // not split: the budget would not be consulted
		}
		o.Refine.TimeBudget = time.Nanosecond
		c, err = o.bound(context.Background(), f1, f2, paperBox)
		if err != nil {
			t.Fatal(err)
		}
		if !c.TimeBudgetHit || !c.Certified {
			t.Errorf("seed %d: budget of 1 ns: TimeBudgetHit %v, certified %v", seed, c.TimeBudgetHit, c.Certified)
		}
		return
	}
	t.Fatal("no instance split without a budget")
}
