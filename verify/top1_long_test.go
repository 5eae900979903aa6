package verify

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/spec"
)

// TestTop1CertifiedNotContradicted decides every ball of radius 4/255
// about the digits test images (a small node limit) and searches each
// certified ball for a disagreement independently of the search that
// certified it: random points, corners and the points of largest and
// smallest value of each pixel, each checked by CheckTop1.
func TestTop1CertifiedNotContradicted(t *testing.T) {
	if testing.Short() {
		t.Skip("decides 450 balls")
	}
	f, g, xs := digitsPair(t)
	rng := rand.New(rand.NewPCG(7, 8))
	certified := 0
	for i, x := range xs {
		box := ball(x, 4.0/255)
		o := DefaultOptions()
		o.MaxNodes = 30
		res, err := DecideTop1(context.Background(), f, g, spec.Inputs{Box: box}, &o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != Holds {
			continue
		}
		certified++
		p := make([]float64, len(x))
		for q := range 600 {
			for k := range p {
				switch {
				case q < 128: // pixel q/2 at an end, the others at the centre
					p[k] = x[k]
					if k == q/2 {
						p[k] = []float64{box.Lo[k], box.Hi[k]}[q%2]
					}
					p[k] = min(max(p[k], box.Lo[k]), box.Hi[k])
				case q < 300:
					p[k] = []float64{box.Lo[k], box.Hi[k]}[rng.IntN(2)]
				default:
					p[k] = box.Lo[k] + rng.Float64()*(box.Hi[k]-box.Lo[k])
				}
			}
			if _, s, err := CheckTop1(f, g, p, p); err != nil || s == Violated {
				t.Fatalf("image %d: certified, but the networks disagree at %v (%v)", i, p, err)
			}
		}
	}
	t.Logf("%d of %d balls certified, none contradicted", certified, len(xs))
}
