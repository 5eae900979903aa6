package verify

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
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

// TestChainPassDeadline checks that a deadline met anywhere in a search
// on chains, inside a node's bound propagation (bounds.SingleContext)
// included, and in its margins (bounds.PairBounds.MarginsContext),
// leaves a property that holds unknown (Timeout), never holds: for the
// tolerance of a box, top-1 agreement and relational properties (the sign
// proof and the joint search), with the deadline at every check the
// uncut search needs (at 150 of them spread evenly when there are more).
func TestChainPassDeadline(t *testing.T) {
	f, g := perturbedPair(t)
	box := ball([]float64{0.3, 0.5, 0.7}, 0.1)
	o := DefaultOptions()
	o.Workers = 1
	fr, err := randnet.New(rand.New(rand.NewPCG(3, 4)), []int{3, 8, 8, 2}) // TestDecideRelational's
	if err != nil {
		t.Fatal(err)
	}
	tied := monotonic(spec.Box{Lo: []float64{-0.2, -0.1, 0}, Hi: []float64{0.2, 0.1, 0.05}}, 0, 0.5)
	tied.Links[0].Hi = 0
	wide := spec.Box{Lo: []float64{-0.3, -0.3, -0.3}, Hi: []float64{0.3, 0.3, 0.3}}
	decide := map[string]func(context.Context) (Status, Reason, error){
		"box": func(ctx context.Context) (Status, Reason, error) {
			r, err := Decide(ctx, f, g, spec.Inputs{Box: box}, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{0.32}}, &o)
			if err != nil {
				return 0, 0, err
			}
			return r.Status, r.Reason, nil
		},
		"top1": func(ctx context.Context) (Status, Reason, error) {
			r, err := DecideTop1(ctx, f, g, spec.Inputs{Box: box}, &o)
			if err != nil {
				return 0, 0, err
			}
			return r.Status, r.Reason, nil
		},
		"monotone": func(ctx context.Context) (Status, Reason, error) {
			r, err := DecideRelational(ctx, fr, fr, monotonic(wide, 1, 0.5), &o)
			if err != nil {
				return 0, 0, err
			}
			return r.Status, r.Reason, nil
		},
		"tied with slack": func(ctx context.Context) (Status, Reason, error) {
			r, err := DecideRelational(ctx, fr, fr, tied, &o)
			if err != nil {
				return 0, 0, err
			}
			return r.Status, r.Reason, nil
		},
	}
	for name, d := range decide {
		counted := &expiring{Context: context.Background()}
		counted.n.Store(math.MaxInt64)
		st, _, err := d(counted)
		if err != nil {
			t.Fatal(err)
		}
		if st != Holds {
			t.Fatalf("%s: uncut %v, want a property that holds", name, st)
		}
		checks := math.MaxInt64 - counted.n.Load()
		for n := int64(0); n < checks; n += max(1, checks/150) {
			ctx := &expiring{Context: context.Background()}
			ctx.n.Store(n)
			st, r, err := d(ctx)
			if err != nil {
				t.Fatalf("%s, deadline at check %d: %v", name, n, err)
			}
			if st != Unknown || r != Timeout {
				t.Fatalf("%s, deadline at check %d of %d: %v (%v)", name, n, checks, st, r)
			}
		}
		t.Logf("%s: %d checks of the context", name, checks)
	}
}

// TestTop1AttackCut checks that a top-1 node whose context ends after
// its margins are bounded, in its attack, stays open (process returns
// nil) and that the attack starts no ascent once the context is done:
// on MNIST 3x100 the root's attack ran 0.7 s past a deadline of 0.1 s.
func TestTop1AttackCut(t *testing.T) {
	f, g := perturbedPair(t)
	box := ball([]float64{0.3, 0.5, 0.7}, 0.3)
	o := DefaultOptions()
	o.Workers = 1
	tp, err := newTop1(f, g, spec.Inputs{Box: box}, o)
	if err != nil {
		t.Fatal(err)
	}
	root := &top1Node{lo: box.Lo, hi: box.Hi, vol: 1, prio: math.Inf(-1)}
	c := argmax(tp.evalF(centre(root.lo, root.hi)))
	counted := &expiring{Context: context.Background()}
	counted.n.Store(math.MaxInt64)
	lf, lg, err := tp.margins(counted, root, c)
	if err != nil {
		t.Fatal(err)
	}
	if min(slices.Min(lf), slices.Min(lg)) > 0 {
		t.Fatal("the margins close the root: no attack to cut")
	}
	checks := math.MaxInt64 - counted.n.Load()
	cut := &expiring{Context: context.Background()}
	cut.n.Store(checks) // the margins' checks pass, the attack's first fails
	if out := tp.process(cut, root); out != nil {
		t.Fatalf("cut in the attack: outcome %+v, want nil (the node open)", out)
	}
	done := &expiring{Context: context.Background()}
	x, v := tp.attack(done, root, c, tp.targets(c, lf, lg), o.RootStarts, rand.New(rand.NewPCG(1, 2)))
	if x != nil || v != nil || done.n.Load() != -1 {
		t.Fatalf("attack with its context done: point %v, violation %v, %d checks", x, v, -done.n.Load())
	}
}

// perturbedPair returns a random 3-8-8-4 network and its copy with
// weights and biases perturbed (boundstest.Perturb, rel 0.02).
func perturbedPair(t *testing.T) (f, g *nn.Network) {
	rng := rand.New(rand.NewPCG(4, 9))
	f, err := randnet.New(rng, []int{3, 8, 8, 4})
	if err != nil {
		t.Fatal(err)
	}
	return f, boundstest.Perturb(rng, f, 0.02)
}
