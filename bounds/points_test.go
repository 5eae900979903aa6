package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestPointsMatchesSingle checks Points.At against Single on a point box
// (random networks and their int8 copies, with and without slack, at
// random points and at the input quantiser's rounding ties, where the
// evaluation with radii gives way to intervals): each enclosure contains
// the network's value there, meets Single's (both enclose the exact
// value) and is as narrow as rounding.
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
			pts := xs
			if h {
				for _, x := range xs[:4] {
					tie := append([]float64(nil), x...)
					for i := range tie {
						sc, _ := g.Input.At(i)
						tie[i] = (math.Floor(x[i]/sc) + 0.5) * sc
					}
					pts = append(pts, tie)
				}
			}
			for _, x := range pts {
				got := p.At(x)
				s, err := Single(n, spec.Box{Lo: x, Hi: x}, Options{Method: MethodInterval, RequantSlack: opts.RequantSlack})
				if err != nil {
					t.Fatal(err)
				}
				y, _ := n.Eval(x)
				for j, iv := range s.Post[len(s.Post)-1] {
					if !got[j].Contains(y[j]) || got[j].Hi < iv.Lo || got[j].Lo > iv.Hi || got[j].Hi-got[j].Lo > iv.Hi-iv.Lo+1e-9*(1+math.Abs(y[j])) {
						t.Fatalf("trial %d (int8 %v): output %d at %v: At %v, Single %v, value %v", trial, h, j, x, got[j], iv, y[j])
					}
				}
			}
		}
	}
}
