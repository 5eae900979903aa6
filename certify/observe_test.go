package certify

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestSearchMoreSeeds checks the searches after a root SDP on an int8
// network of 16 inputs: with a bound asked for (Refine.Enough), or a
// bound within the target ratio of the error found, one search, the same
// as without the extra seeds; otherwise quantisedSearchSeeds searches,
// whose error is at least the first's and is the networks' error at the
// point returned.
func TestSearchMoreSeeds(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 4))
	nx := quantisedSeedsMinInputs
	f := boundstest.Network(rng, []int{nx, 96, 96, 3}, 1, nn.Activation{Kind: nn.ReLU})
	box := spec.Box{Lo: make([]float64, nx), Hi: make([]float64, nx)}
	var xs [][]float64
	for i := range box.Lo {
		box.Lo[i], box.Hi[i] = -1, 1
	}
	for range 64 {
		xs = append(xs, boundstest.Uniform(rng, box.Lo, box.Hi))
	}
	g, _, err := boundstest.Int8(rng, f, xs)
	if err != nil {
		t.Fatal(err)
	}
	q := spec.Quantity{Norm: spec.Norm2}
	o := task{Options: DefaultOptions(), in: spec.Inputs{Box: box, Pairing: spec.SameInput}, q: q, timing: &Timing{}}
	o.SearchWork /= 30 // the test is of how many searches run, not of how long each is (the later seeds still find more)
	ctx := context.Background()

	o.Refine.Enough = 1e9
	var one observation
	one.searchMore(ctx, f, g, box, &o, math.Inf(1))
	o.Refine.Enough = 0
	var reached observation
	reached.searchMore(ctx, f, g, box, &o, 0)
	if reached.err != one.err || one.err <= 0 {
		t.Fatalf("one search: %v with a bound asked for, %v with the target reached", one.err, reached.err)
	}
	var seeds observation
	seeds.searchMore(ctx, f, g, box, &o, math.Inf(1))
	if !(seeds.err >= one.err) {
		t.Fatalf("%d searches found %v, one %v", quantisedSearchSeeds, seeds.err, one.err)
	}
	if e := errorAt(t, f, g, seeds.x1, seeds.x2, q); e != seeds.err {
		t.Fatalf("the error at the point found is %v, the search says %v", e, seeds.err)
	}
	t.Logf("one search %.6g, %d searches %.6g", one.err, quantisedSearchSeeds, seeds.err)
}
