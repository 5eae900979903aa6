package verify

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/nnbound/nnbound/spec"
)

// expiring is a context whose deadline passes at its n-th call of Err: a
// deadline met inside a node's bound propagation without a clock.
type expiring struct {
	context.Context
	n atomic.Int64
}

// Err returns context.DeadlineExceeded from the n-th call on.
func (c *expiring) Err() error {
	if c.n.Add(-1) < 0 {
		return context.DeadlineExceeded
	}
	return nil
}

// TestDecideGraphDeadline checks that a deadline met while a node's
// bounds are computed stops DecideGraph with Unknown (Timeout), the open
// box's bound still counted: Result.Bound is at least the largest
// difference sampled.
func TestDecideGraphDeadline(t *testing.T) {
	box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
	in := spec.Inputs{Box: box, Pairing: spec.SameInput}
	f, g := residualPair(t, 3, 6)
	rng := rand.New(rand.NewPCG(3, 9))
	tol := spec.Tolerance{Norm: spec.NormInf}
	worst := 0.0
	for range 2000 {
		x := []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1}
		yf, _ := f.Eval(x)
		yg, _ := g.Eval(x)
		d := make([]float64, len(yf))
		for k := range d {
			d[k] = yg[k] - yf[k]
		}
		worst = max(worst, tol.Measure(d))
	}
	tol.Eps = []float64{2 * worst}
	for _, n := range []int64{1, 5, 40, 150, 400} {
		ctx := &expiring{Context: context.Background()}
		ctx.n.Store(n)
		r, err := DecideGraph(ctx, f, g, in, tol, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != Unknown || r.Reason != Timeout {
			t.Errorf("deadline at check %d: %v (%v) after %d nodes", n, r.Status, r.Reason, r.Nodes)
		}
		t.Logf("deadline at check %d: %v (%v) after %d nodes, bound %.4g", n, r.Status, r.Reason, r.Nodes, r.Bound)
		if !(r.Bound >= worst) {
			t.Errorf("deadline at check %d: bound %v below the sampled %v", n, r.Bound, worst)
		}
	}
}
