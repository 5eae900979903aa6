package verify

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// int8Pair returns a random 3-8-8-4 network and a random int8 (or
// narrower) copy of it with an input quantiser, and a ball about a
// random point of [0, 1]^3.
func int8Pair(t *testing.T, seed uint64) (f, g *nn.Network, box spec.Box) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 13))
	f, err := randnet.New(rng, []int{3, 8, 8, 4})
	if err != nil {
		t.Fatal(err)
	}
	var xs [][]float64
	for range 50 {
		xs = append(xs, []float64{rng.Float64(), rng.Float64(), rng.Float64()})
	}
	g, _, err = boundstest.Int8(rng, f, xs)
	if err != nil {
		t.Fatal(err)
	}
	if g.Input == nil {
		t.Fatal("the int8 copy has no input quantiser")
	}
	return f, g, ball(xs[0], 0.05+0.1*rng.Float64())
}

// TestTop1ChildrenCover splits boxes of random int8 pairs five times at
// random coordinates (children) and checks that the leaves own every
// input of the root: every sampled x, among them the quantiser's
// thresholds and their float64 neighbours, lies in the box of a leaf
// whose quantised box holds q(x).
func TestTop1ChildrenCover(t *testing.T) {
	for seed := range uint64(8) {
		f, g, box := int8Pair(t, seed)
		tp, err := newTop1(f, g, spec.Inputs{Box: box}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 14))
		leaves := []*top1Node{{lo: box.Lo, hi: box.Hi, vol: 1}}
		for range 5 {
			var next []*top1Node
			for _, n := range leaves {
				c := tp.children(n, rng.IntN(len(n.lo)))
				next = append(next, c[0], c[1])
			}
			leaves = next
		}
		vol := 0.0
		for _, n := range leaves {
			vol += n.vol
		}
		if math.Abs(vol-1) > 1e-6 {
			t.Errorf("seed %d: the leaves' volumes add to %v", seed, vol)
		}
		x := make([]float64, box.Dim())
		for p := range 3000 {
			for i := range x {
				x[i] = box.Lo[i] + rng.Float64()*(box.Hi[i]-box.Lo[i])
				if p%2 == 0 { // at or next to a threshold of q
					s, _ := g.Input.At(i)
					th := (math.Floor(x[i]/s) + 0.5) * s
					x[i] = min(max(th+float64(rng.IntN(5)-2)*math.Abs(th)*0x1p-52, box.Lo[i]), box.Hi[i])
				}
			}
			if !owned(g.Input, leaves, x) {
				t.Fatalf("seed %d: no leaf owns %v", seed, x)
			}
		}
	}
}

// owned reports whether a leaf's box holds x and its quantised box q(x).
func owned(q *nn.Quantiser, leaves []*top1Node, x []float64) bool {
	for _, n := range leaves {
		in := true
		for i, v := range x {
			if v < n.lo[i] || v > n.hi[i] || q.Apply(i, v) < n.glo[i] || q.Apply(i, v) > n.ghi[i] {
				in = false
				break
			}
		}
		if in {
			return true
		}
	}
	return false
}

// TestTop1GridSplit decides random pairs with int8 copies that quantise
// their input, where the search splits on the quantiser's thresholds, and
// checks every verdict independently (checkTop1Result, and the grid
// points of the ball).
func TestTop1GridSplit(t *testing.T) {
	seen, split := map[Status]int{}, 0
	for seed := range uint64(12) {
		f, g, box := int8Pair(t, seed)
		o := DefaultOptions()
		o.MaxNodes = 200
		res, err := DecideTop1(context.Background(), f, g, spec.Inputs{Box: box}, &o)
		if err != nil {
			t.Fatal(err)
		}
		seen[res.Status]++
		rng := rand.New(rand.NewPCG(seed, 15))
		checkTop1Result(t, "int8", f, g, box, res, rng)
		if res.Status == Holds {
			if res.Nodes > 1 {
				split++
			}
			if p := contradict(f, g, centre(box.Lo, box.Hi), box, rng); p != nil {
				t.Fatalf("seed %d: certified, but the networks disagree at %v", seed, p)
			}
		}
	}
	t.Logf("verdicts %v, %d proofs that split", seen, split)
	if seen[Holds] == 0 || split == 0 {
		t.Errorf("verdicts %v, %d proofs that split: want agreement proved by splitting", seen, split)
	}
}
