package bounds

import (
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestPointsMatchesSingle checks Points.At against Single on a point box
// (random networks and their int8 copies, with and without slack): the
// same enclosures, and each contains the network's value there.
func TestPointsMatchesSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	for trial := range 100 {
		f := boundstest.Network(rng, randomSizes(rng), 1, nn.Activation{Kind: nn.ReLU})
		var xs [][]float64
		box := randomBox(rng, f.InputSize())
		for range 16 {
			xs = append(xs, boundstest.Uniform(rng, box.Lo, box.Hi))
		}
		g, _, err := boundstest.Int8(rng, f, xs)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{RequantSlack: float64(trial % 2)}
		for _, h := range [2]bool{false, true} {
			n := f
			if h {
				n = g
			}
			p, err := NewPoints(n, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range xs {
				got := p.At(x)
				s, err := Single(n, spec.Box{Lo: x, Hi: x}, Options{Method: MethodInterval, RequantSlack: opts.RequantSlack})
				if err != nil {
					t.Fatal(err)
				}
				y, _ := n.Eval(x)
				for j, iv := range s.Post[len(s.Post)-1] {
					if got[j] != iv || !near(got[j], y[j], 1) {
						t.Fatalf("trial %d (int8 %v): output %d at %v: At %v, Single %v, value %v", trial, h, j, x, got[j], iv, y[j])
					}
				}
			}
		}
	}
}
