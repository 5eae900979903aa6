package bounds

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/spec"
)

// TestLinearEnclosesSamples checks Affine.On on random sub-boxes of random
// networks' boxes (every method): each output at random points of the
// sub-box and at its corners lies in the enclosure, and the enclosure
// lies in the whole box's.
func TestLinearEnclosesSamples(t *testing.T) {
	for c, m := range testOptions {
		rng := rand.New(rand.NewPCG(21, uint64(c)))
		for trial := range 150 {
			f := boundstest.Network(rng, randomSizes(rng), 1)
			box := randomBox(rng, f.InputSize())
			a, err := Linear(f, box, m)
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				part := spec.Box{Lo: boundstest.Uniform(rng, box.Lo, box.Hi), Hi: make([]float64, box.Dim())}
				for i := range part.Hi {
					part.Hi[i] = part.Lo[i] + (box.Hi[i]-part.Lo[i])*rng.Float64()*rng.Float64()
				}
				out := a.On(part)
				pts := [][]float64{part.Lo, part.Hi}
				for range 30 {
					pts = append(pts, boundstest.Uniform(rng, part.Lo, part.Hi))
				}
				for _, x := range pts {
					y, _ := f.Eval(x)
					for j, v := range y {
						if !out[j].Contains(v) || out[j].Lo < a.out[j].Lo || out[j].Hi > a.out[j].Hi {
							t.Fatalf("%v trial %d: output %d = %v at %v, enclosure %v (whole box %v)", m, trial, j, v, x, out[j], a.out[j])
						}
					}
				}
			}
		}
	}
}

// TestLinearErrors checks that Linear refuses a quantised network and that
// On panics on a part outside the box.
func TestLinearErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 1))
	f := boundstest.Network(rng, []int{2, 4, 1}, 1)
	g, _, err := boundstest.Int8(rng, f, [][]float64{{-1, -1}, {1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
	if _, err := Linear(g, box, Options{Method: MethodSymbolic}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Linear on an int8 network: %v, want ErrUnsupported", err)
	}
	a, err := Linear(f, box, Options{Method: MethodSymbolic})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("On of a part outside the box did not panic")
		}
	}()
	a.On(spec.Box{Lo: []float64{-1, 0}, Hi: []float64{1, 2}})
}
