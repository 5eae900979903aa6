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
// number of processors or on which goroutine finishes first. On the
// small box the pieces have few enough cells of the input quantiser to be
// bounded case by case when they come to the top (laterCases).
func TestRefineDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	f, fq := int8Pair(t, rng, 3, 8)
	for _, w := range []float64{1, 0.3} {
		box := spec.Box{Lo: []float64{-w, -w, -w}, Hi: []float64{w, w, w}}
		opts := DefaultOptions()
		opts.Refine.TimeBudget, opts.Refine.MaxPieces, opts.Refine.TargetRatio, opts.Split = 0, 48, 1, 0
		opts.Refine.MinGain = 0 // the test is of the batches, not of when refining pays
		opts.SearchWork /= 100  // nor of the search, most of the time at the default
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
			t.Fatalf("box %v: GOMAXPROCS 1: bound %v, found %v, %d pieces; 4: %v, %v, %d", box, a.Bound,
				a.ObservedError, len(a.Pieces), b.Bound, b.ObservedError, len(b.Pieces))
		}
		if len(a.Pieces) < 20 || a.Bound < a.ObservedError {
			t.Fatalf("box %v: %d pieces, bound %v, found %v: want the refinement to have run", box, len(a.Pieces),
				a.Bound, a.ObservedError)
		}
		for i := range a.Pieces {
			p, r := a.Pieces[i], b.Pieces[i]
			if p.Bound != r.Bound || !slices.Equal(p.Lo1, r.Lo1) || !slices.Equal(p.Hi1, r.Hi1) {
				t.Fatalf("box %v: piece %d: %v..%v bound %v on one processor, %v..%v bound %v on four", box, i,
					p.Lo1, p.Hi1, p.Bound, r.Lo1, r.Hi1, r.Bound)
			}
		}
		t.Logf("box %v: %d pieces, %d solves, bound %.5g, found %.5g", box, len(a.Pieces), a.SDP.Solves, a.Bound,
			a.ObservedError)
	}
}
