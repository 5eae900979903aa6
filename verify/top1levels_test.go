package verify

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/spec"
)

// TestTop1Levels checks the level search on the digits CNN against its
// int8 copy: rawLast's outputs round to g's through the dropped output
// quantiser; levelGrid gives one point of the box in every level of g's
// input quantiser on it; and on the ball of radius 2/255 about image 65,
// where the ascents and the walk find no disagreement at the root, the
// level search finds a tie of g that CheckTop1 proves again, inside the
// box; once its context is done it stops and finds nothing (an
// interrupted agree waited seconds for it).
func TestTop1Levels(t *testing.T) {
	f, g, xs := cnnPair(t)
	raw := rawLast(g)
	last := g.Layers[len(g.Layers)-1]
	if raw == g || last.Pre == nil {
		t.Fatalf("the int8 CNN's last layer has no output quantiser to drop")
	}
	box := ball(xs[65], 2.0/255)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		x := make([]float64, len(box.Lo))
		for i := range x {
			x[i] = box.Lo[i] + rng.Float64()*(box.Hi[i]-box.Lo[i])
		}
		y, _ := g.Eval(x)
		r, _ := raw.Eval(x)
		for k := range r {
			if got := last.Act.Apply(last.Pre.Apply(k, r[k])); got != y[k] {
				t.Fatalf("output %d: raw %v rounds to %v, g gives %v", k, r[k], got, y[k])
			}
		}
	}

	q := g.Input
	grid := levelGrid(q, box.Lo, box.Hi)
	for i, pts := range grid {
		s, _ := q.At(i)
		var got []float64
		for _, x := range pts {
			if x < box.Lo[i] || x > box.Hi[i] {
				t.Fatalf("input %d: %v outside [%v, %v]", i, x, box.Lo[i], box.Hi[i])
			}
			got = append(got, q.Apply(i, x))
		}
		lo, hi := q.Apply(i, box.Lo[i]), q.Apply(i, box.Hi[i])
		if want := int((hi-lo)/s+0.5) + 1; len(slices.Compact(got)) != want || got[0] != lo || got[len(got)-1] != hi {
			t.Fatalf("input %d: levels %v, want %d from %v to %v", i, got, want, lo, hi)
		}
	}

	yf, err := f.Eval(xs[65])
	if err != nil {
		t.Fatal(err)
	}
	c := argmax(yf)
	for _, levels := range []int{0, 2000} {
		o := DefaultOptions()
		o.RootLevels = levels
		tp, err := newTop1(f, g, spec.Inputs{Box: box}, o)
		if err != nil {
			t.Fatal(err)
		}
		n := &top1Node{lo: box.Lo, hi: box.Hi, vol: 1}
		done, cancel := context.WithCancel(context.Background())
		cancel()
		if _, p := tp.levels(done, n, c, rand.New(rand.NewPCG(1, 0))); p != nil {
			t.Fatalf("RootLevels %d: the search ran after its context was done", levels)
		}
		x, p := tp.levels(context.Background(), n, c, rand.New(rand.NewPCG(1, 0)))
		if levels == 0 {
			if p != nil {
				t.Fatalf("RootLevels 0: the search ran")
			}
			continue
		}
		if p == nil {
			t.Fatalf("no disagreement found")
		}
		if !box.Contains(x) {
			t.Fatalf("disagreement outside the box")
		}
		if _, s, err := CheckTop1(f, g, x, x); err != nil || s != Violated {
			t.Fatalf("CheckTop1 at the disagreement: %v, %v", s, err)
		}
		t.Logf("g at the disagreement: %v (class %d at the centre)", p.G, c)
	}
}
