package verify

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"gonum.org/v1/gonum/mat"
)

// TestSignSearchProvesMonotone decides monotonicity of outputs of random
// networks made monotone in x_0 (positive weights from x_0 and between
// layers, a positive output row): the sign search must prove it where
// the joint search alone needs many nodes, and every Holds verdict of a
// random network must survive sampling. The verdict and the node count
// do not depend on the number of workers.
func TestSignSearchProvesMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	box := spec.Box{Lo: []float64{-1, -0.5, 0.2}, Hi: []float64{1, 0.5, 0.4}}
	for trial := range 9 {
		f, err := randnet.New(rng, []int{3, 10, 10, 2})
		if err != nil {
			t.Fatal(err)
		}
		if trial%3 != 1 { // monotone increasing in x_0 by construction, or (trial%3 == 2) mostly
			for li, l := range f.Layers {
				r, cols := l.W.Dims()
				for i := range r {
					for j := range cols {
						if li > 0 || j == 0 {
							w := math.Abs(l.W.At(i, j))
							if trial%3 == 2 && li > 0 && rng.IntN(6) == 0 {
								w = -w / 4
							}
							l.W.Set(i, j, w)
						}
					}
				}
			}
		}
		o := DefaultOptions()
		o.Workers = 1
		o.MaxNodes = 50000
		for k := range 2 {
			r := monotonic(box, k, 0)
			res, err := DecideRelational(context.Background(), f, f, r, &o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("trial %d output %d: %v (%v) in %d nodes", trial, k, res.Status, res.Reason, res.Nodes)
			o3 := o
			o3.Workers = 3
			if res3, err := DecideRelational(context.Background(), f, f, r, &o3); err != nil || res3.Status != res.Status || res3.Nodes != res.Nodes {
				t.Fatalf("trial %d output %d: 3 workers give %v in %d nodes (%v), 1 worker %v in %d", trial, k, res3.Status, res3.Nodes, err, res.Status, res.Nodes)
			}
			switch res.Status {
			case Holds:
				if phi := sampleRelational(t, f, f, r, 4000); phi <= 0 {
					t.Fatalf("trial %d output %d holds, but a sampled pair has margin %v", trial, k, phi)
				}
			case Violated:
				p := res.Counterexample
				if _, st, err := CheckRelational(f, f, p.XF, p.XG, r); err != nil || st != Violated || !p.InSet {
					t.Fatalf("trial %d output %d: counterexample re-checks as %v (%v)", trial, k, st, err)
				}
			case Unknown:
				if trial%3 == 0 {
					t.Fatalf("trial %d output %d: monotone by construction, unknown (%v)", trial, k, res.Reason)
				}
			}
		}
	}
}

// TestSteepestFall checks the pair the sign search's refutation starts
// from on f(x) = relu(x - 0.2) - 2 relu(x - 0.4) + 2 relu(x - 0.6) over
// [0, 1], which falls by 0.2 from 0.4 to 0.6 and rises elsewhere: from a point inside the
// fall the pair spans it, and the decision of "f never decreases" is a
// counterexample that CheckRelational accepts.
func TestSteepestFall(t *testing.T) {
	f := &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(3, 1, []float64{1, 1, 1}), B: []float64{-0.2, -0.4, -0.6}, Act: nn.Activation{Kind: nn.ReLU}},
		{W: mat.NewDense(1, 3, []float64{1, -2, 2}), B: []float64{0}, Act: nn.Activation{Kind: nn.Identity}},
	}}
	box := spec.Box{Lo: []float64{0}, Hi: []float64{1}}
	d := []bounds.Interval{{Lo: 0, Hi: 1}}
	q, err := newSignSearch(context.Background(), f, []float64{1}, 0, true, box, d, 0)
	if err != nil {
		t.Fatal(err)
	}
	xa, step, _ := q.steepestFall([]float64{0.5}, []float64{1})
	if xa == nil || math.Abs(xa[0]-0.4) > 2.0/fallPoints || math.Abs(step[0]-0.2) > 4.0/fallPoints {
		t.Fatalf("pair from %v by %v, want from 0.4 by 0.2", xa, step)
	}
	if xa, _, _ := q.steepestFall([]float64{0.1}, []float64{0.1}); xa == nil || math.Abs(xa[0]-0.4) > 2.0/fallPoints {
		t.Errorf("from 0.1 along 0.1: pair from %v, want 0.4 (the line spans the hull)", xa)
	}
	res, err := DecideRelational(context.Background(), f, f, monotonic(box, 0, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Counterexample
	if res.Status != Violated || p.XG[0]-p.XF[0] < 0 {
		t.Fatalf("%v, counterexample %+v", res.Status, p)
	}
	if _, st, err := CheckRelational(f, f, p.XF, p.XG, monotonic(box, 0, 0)); err != nil || st != Violated {
		t.Fatalf("the counterexample re-checks as %v (%v)", st, err)
	}
}
