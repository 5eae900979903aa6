package certify

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/spec"
)

// TestRefineDeterministic refines a network against its int8 copy on one
// and on four processors and checks that the pieces, the bound and the
// error found are the same: the batches of refine do not depend on the
// number of processors or on which goroutine finishes first.
func TestRefineDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	f, fq := int8Pair(t, rng, 3, 8)
	box := spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}
	opts := DefaultOptions()
	opts.Refine.TimeBudget, opts.Refine.MaxPieces, opts.Refine.TargetRatio, opts.Split = 0, 160, 1, 0
	in, q := spec.Inputs{Box: box, Pairing: spec.SameInput}, spec.Quantity{}
	var got [2]*Certificate
	for k, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		c, err := Bound(context.Background(), f, fq, in, q, opts)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		got[k] = c
	}
	a, b := got[0], got[1]
	if a.Bound != b.Bound || a.ObservedError != b.ObservedError || len(a.Pieces) != len(b.Pieces) {
		t.Fatalf("GOMAXPROCS 1: bound %v, found %v, %d pieces; 4: %v, %v, %d", a.Bound, a.ObservedError, len(a.Pieces),
			b.Bound, b.ObservedError, len(b.Pieces))
	}
	if len(a.Pieces) < 50 {
		t.Fatalf("%d pieces, want the refinement to have run (bound %v, found %v)", len(a.Pieces), a.Bound, a.ObservedError)
	}
	for i := range a.Pieces {
		p, r := a.Pieces[i], b.Pieces[i]
		if p.Bound != r.Bound || !slices.Equal(p.Lo1, r.Lo1) || !slices.Equal(p.Hi1, r.Hi1) {
			t.Fatalf("piece %d: %v..%v bound %v on one processor, %v..%v bound %v on four", i, p.Lo1, p.Hi1, p.Bound,
				r.Lo1, r.Hi1, r.Bound)
		}
	}
	t.Logf("%d pieces, bound %.5g, found %.5g", len(a.Pieces), a.Bound, a.ObservedError)
}
