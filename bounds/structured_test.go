package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// smallCNN returns a random CNN on 2x6x6 inputs with structured layers
// (Conv 3x3 pad 1 -> ReLU -> Conv 3x3 stride 2 -> ReLU -> Dense 3; odd
// variants with 2 groups, dilation 2 and padding 2), and its copy with
// every parameter rounded to 1/8.
func smallCNN(rng *rand.Rand, variant int) (f, q *nn.Network) {
	c1 := &nn.Conv2D{InC: 2, InH: 6, InW: 6, OutC: 3, OutH: 6, OutW: 6, KH: 3, KW: 3,
		Stride: [2]int{1, 1}, Dil: [2]int{1, 1}, Pad: [2]int{1, 1}, Groups: 1}
	c2 := &nn.Conv2D{InC: 3, InH: 6, InW: 6, OutC: 4, OutH: 3, OutW: 3, KH: 3, KW: 3,
		Stride: [2]int{2, 2}, Dil: [2]int{1, 1}, Pad: [2]int{1, 1}, Groups: 1}
	if variant%2 == 1 {
		c1.Groups, c1.OutC = 2, 4
		c2.InC, c2.Dil, c2.Pad = 4, [2]int{2, 2}, [2]int{2, 2}
	}
	layers := make([]nn.Layer, 0, 3)
	for _, c := range []*nn.Conv2D{c1, c2} {
		n := c.OutC * c.InC / c.Groups * c.KH * c.KW
		c.Kernel = boundstest.Uniform(rng, filled(n, -0.6), filled(n, 0.6))
		l, err := nn.ConvLayer(c, boundstest.Uniform(rng, filled(c.OutC, -0.2), filled(c.OutC, 0.2)), nn.Activation{Kind: nn.ReLU})
		if err != nil {
			panic(err)
		}
		layers = append(layers, l)
	}
	last := boundstest.Network(rng, []int{c2.Out(), 3}, 0.4).Layers[0]
	f = &nn.Network{Layers: append(layers, last)}
	q = f.Clone()
	round := func(v []float64) {
		for i := range v {
			v[i] = math.Round(v[i]*8) / 8
		}
	}
	for _, l := range q.Layers {
		if l.Conv != nil {
			round(l.Conv.Kernel)
		} else {
			round(l.W.RawMatrix().Data)
		}
		round(l.B)
	}
	return f, q
}

// filled returns n copies of v.
func filled(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// closeIntervals reports whether a and b agree to a relative 1e-9 (the
// structured and dense layers sum in different orders).
func closeIntervals(a, b []Interval) bool {
	for i := range a {
		tol := 1e-9 * (1 + b[i].Mag())
		if math.Abs(a[i].Lo-b[i].Lo) > tol || math.Abs(a[i].Hi-b[i].Hi) > tol {
			return false
		}
	}
	return true
}

// TestStructuredEqualsDense checks that the bounds of CNNs with structured
// layers equal those of their dense lowering (nn.Densify): for one network
// and for a pair and its difference (joint back-substitution included),
// interval at every layer, symbolic at the first (below it the dense pair
// clips its ReLU pair planes by polygons); and that they, and the optimised
// ones, enclose the networks'
// values at random points of the box, a quarter of the coordinates at an
// end of their range.
func TestStructuredEqualsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 28))
	for trial := range 6 {
		f, q := smallCNN(rng, trial)
		fd, _ := nn.Densify(f, 1<<20)
		qd, _ := nn.Densify(q, 1<<20)
		x := boundstest.Uniform(rng, filled(f.InputSize(), 0), filled(f.InputSize(), 1))
		box := spec.Box{Lo: make([]float64, len(x)), Hi: make([]float64, len(x))}
		for i, v := range x {
			box.Lo[i], box.Hi[i] = v-0.05, v+0.05
		}
		for _, m := range []Method{MethodInterval, MethodSymbolic} {
			a, err := Single(f, box, Options{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			b, err := Single(fd, box, Options{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			for k := range a.Pre {
				if !closeIntervals(a.Pre[k], b.Pre[k]) {
					t.Fatalf("trial %d %v layer %d: structured %v, dense %v", trial, m, k, a.Pre[k], b.Pre[k])
				}
			}
		}
		in := spec.Inputs{Box: box, Pairing: spec.SameInput}
		if trial%3 == 2 {
			in.Pairing, in.Quant = spec.QuantisedInput, quantise.Format{FracBits: 4}
		}
		for _, m := range []Method{MethodInterval, MethodSymbolic, MethodOptimised} {
			opts := Options{Method: m, Optimise: OptimiseSettings{Differences: true}}
			a, err := Pair(f, q, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Pair(fd, qd, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			for k := range a.DiffPre {
				if m == MethodOptimised { // slopes are not optimised through convolutions
					break
				}
				if m == MethodSymbolic && k > 0 {
					// Below the first layer, the dense pair takes its ReLU pair
					// planes over the polygons of relupoly.go, which structured
					// layers skip: tighter, not equal. The points below check both.
					break
				}
				if !closeIntervals(a.DiffPre[k], b.DiffPre[k]) || !closeIntervals(a.DiffPost[k], b.DiffPost[k]) ||
					!closeIntervals(a.Net2.Pre[k], b.Net2.Pre[k]) {
					t.Fatalf("trial %d %v layer %d: difference structured %v, dense %v", trial, m, k, a.DiffPre[k], b.DiffPre[k])
				}
			}
			for range 300 {
				x := boundstest.Uniform(rng, box.Lo, box.Hi)
				if err := checkPair(f, q, a, x, in.X2(x)); err != nil {
					t.Fatalf("trial %d %v: at %v: %v", trial, m, x, err)
				}
			}
		}
	}
}
