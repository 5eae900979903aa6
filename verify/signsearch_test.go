package verify

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/spec"
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
