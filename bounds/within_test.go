package bounds

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/spec"
)

// subBox returns box halved along a random coordinate, one to three times,
// as in branch and bound.
func subBox(rng *rand.Rand, box spec.Box) spec.Box {
	lo, hi := append([]float64(nil), box.Lo...), append([]float64(nil), box.Hi...)
	for range 1 + rng.IntN(3) {
		i := rng.IntN(len(lo))
		mid := lo[i]/2 + hi[i]/2
		if rng.IntN(2) == 0 {
			hi[i] = mid
		} else {
			lo[i] = mid
		}
	}
	return spec.Box{Lo: lo, Hi: hi}
}

// containedLayers reports the first interval of got outside want's
// (layers nil in want are skipped).
func containedLayers(name string, got, want [][]Interval) error {
	for k := range want {
		for i, w := range want[k] {
			if g := got[k][i]; g.Lo < w.Lo || g.Hi > w.Hi {
				return fmt.Errorf("%s layer %d neuron %d: %v not inside the parent's %v", name, k, i, g, w)
			}
		}
	}
	return nil
}

// TestWithinChild bounds random pairs on a box and then, with
// Options.Within set to those bounds (the full ones or their Prior), on a
// sub-box: the child's bounds must hold at the sub-box's corners and
// random points, and its layer enclosures lie inside the parent's.
func TestWithinChild(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 0))
	sets := []Options{
		{Method: MethodSymbolic, Heuristics: Heuristics{UnstableOnly: true}},
		{Method: MethodOptimised, Heuristics: Heuristics{UnstableOnly: true, SecondByDifference: true}},
		{Method: MethodInterval},
		{Method: MethodOptimised, Heuristics: Heuristics{SecondByDifference: true}},
	}
	for trial := range 40 {
		f1, f2, in := campaignPair(rng)
		opts := sets[trial%len(sets)]
		parent, err := Pair(f1, f2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		child := in
		child.Box = subBox(rng, in.Box)
		opts.Within = parent
		if trial%2 == 0 {
			opts.Within = parent.Prior()
		}
		pb, err := Pair(f1, f2, child, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, xs := range campaignPairs(rng, child) {
			if err := checkPair(f1, f2, pb, xs[0], xs[1]); err != nil {
				t.Fatalf("trial %d (%v, %v): at x1=%v: %v", trial, opts.Method, in.Pairing, xs[0], err)
			}
		}
		for _, c := range []struct {
			name      string
			got, want [][]Interval
		}{{"network 1", pb.Net1.Pre, parent.Net1.Pre}, {"network 2", pb.Net2.Pre, parent.Net2.Pre},
			{"difference", pb.DiffPre, parent.DiffPre}, {"output difference", pb.DiffPost, parent.DiffPost}} {
			if err := containedLayers(c.name, c.got, c.want); err != nil {
				t.Fatalf("trial %d (%v, %v): %v", trial, opts.Method, in.Pairing, err)
			}
		}
	}
}

// TestWithinShapes rejects bounds of other networks.
func TestWithinShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 0))
	f1, f2, in := campaignPair(rng)
	pb, err := Pair(f1, f2, in, Options{Method: MethodSymbolic})
	if err != nil {
		t.Fatal(err)
	}
	bad := pb.Prior()
	bad.Net2.Pre = bad.Net2.Pre[:len(bad.Net2.Pre)-1]
	short := pb.Prior()
	short.DiffPre[0] = short.DiffPre[0][:0]
	for _, w := range []*PairBounds{bad, short, {Net1: pb.Net1}} {
		if _, err := Pair(f1, f2, in, Options{Method: MethodSymbolic, Within: w}); !errors.Is(err, ErrOptions) {
			t.Errorf("Within of the wrong shape: got %v, want ErrOptions", err)
		}
	}
}

// TestWithinSharesPacks checks that Pairs within a parent's bounds (or its
// Prior) share the parent's packed matrices, that Pairs on other networks
// do not, and that sharing them leaves every bound the same to the bit.
func TestWithinSharesPacks(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 0))
	opts := Options{Method: MethodOptimised, Heuristics: Heuristics{UnstableOnly: true, SecondByDifference: true}}
	for trial := range 6 {
		f1, f2, in := campaignPair(rng)
		parent, err := Pair(f1, f2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		child := in
		child.Box = subBox(rng, in.Box)
		alone := parent.Prior()
		alone.packs = nil
		var got [2]*PairBounds
		for i, w := range []*PairBounds{parent.Prior(), alone} {
			o := opts
			o.Within = w
			if got[i], err = Pair(f1, f2, child, o); err != nil {
				t.Fatal(err)
			}
		}
		if got[0].packs != parent.packs || got[1].packs == parent.packs {
			t.Fatalf("trial %d: packs shared %v, %v; want true, false", trial, got[0].packs == parent.packs, got[1].packs == parent.packs)
		}
		var a, b []Interval
		for i, pb := range got {
			all := append(append([]Interval(nil), pb.Output...), flatten(pb.Net1.Pre, pb.Net2.Pre, pb.DiffPre, pb.DiffPost)...)
			if i == 0 {
				a = all
			} else {
				b = all
			}
		}
		for i := range a {
			if math.Float64bits(a[i].Lo) != math.Float64bits(b[i].Lo) || math.Float64bits(a[i].Hi) != math.Float64bits(b[i].Hi) {
				t.Fatalf("trial %d: bound %d is %v with shared packs, %v without", trial, i, a[i], b[i])
			}
		}
		g2, _, _ := campaignPair(rng)
		if c := chainPacksFor(parent, g2, f2); c == parent.packs {
			t.Fatalf("trial %d: packs shared with another network", trial)
		}
	}
}

// flatten concatenates the intervals of the layers of xs.
func flatten(xs ...[][]Interval) []Interval {
	var out []Interval
	for _, x := range xs {
		for _, v := range x {
			out = append(out, v...)
		}
	}
	return out
}
