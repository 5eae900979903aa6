package smear

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// TestGradientEnclosure checks that the gradient of each output of random
// ReLU networks, at random points of a box (where no pre-activation is 0),
// lies in gradientEnclosure's enclosure from Pair's bounds on the box.
func TestGradientEnclosure(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 5))
		f, err := randnet.New(rng, []int{3, 8, 8, 2})
		if err != nil {
			t.Fatal(err)
		}
		box := spec.Box{Lo: []float64{-1, -0.5, 0}, Hi: []float64{-0.5, 0.5, 0.3}}
		pb, err := bounds.Pair(f, f, spec.Inputs{Box: box}, bounds.Options{Method: bounds.MethodSymbolic})
		if err != nil {
			t.Fatal(err)
		}
		for k := range 2 {
			glo, ghi, ok := gradientEnclosure(f, pb.Net1.Pre, k, nil)
			if !ok {
				t.Fatalf("seed %d: layers do not match", seed)
			}
			for range 50 {
				x := make([]float64, 3)
				for i := range x {
					x[i] = box.Lo[i] + rng.Float64()*(box.Hi[i]-box.Lo[i])
				}
				_, tr, err := search.Forward(f, x)
				if err != nil {
					t.Fatal(err)
				}
				v := make([]float64, 2)
				v[k] = 1
				for i, gi := range tr.Backward(v) {
					if tol := 1e-9 * (1 + math.Abs(gi)); gi < glo[i]-tol || gi > ghi[i]+tol {
						t.Fatalf("seed %d output %d: d/dx%d = %g outside [%g, %g] at %v", seed, k, i, gi, glo[i], ghi[i], x)
					}
				}
			}
		}
		if s := Interval([2]*nn.Network{f, f}, pb, []int{0, 1}, box.Lo, box.Hi); len(s) != 3 {
			t.Fatalf("seed %d: smear %v", seed, s)
		}
	}
}

// TestPreJacobians checks that the Jacobian of every pre-activation of
// random ReLU networks with respect to the inputs, at random points of a
// box, lies in preJacobians' enclosure from Pair's bounds on the box, and
// that Difference scores every input, none negatively.
func TestPreJacobians(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 6))
		f, err := randnet.New(rng, []int{3, 8, 8, 2})
		if err != nil {
			t.Fatal(err)
		}
		g := perturb(f, rng)
		box := spec.Box{Lo: []float64{-1, -0.5, 0}, Hi: []float64{-0.5, 0.5, 0.3}}
		pb, err := bounds.Pair(f, g, spec.Inputs{Box: box}, bounds.Options{Method: bounds.MethodSymbolic})
		if err != nil {
			t.Fatal(err)
		}
		jac := preJacobians(f, pb.Net1.Pre)
		if jac == nil {
			t.Fatalf("seed %d: layers do not match", seed)
		}
		for range 50 {
			x := boundstest.Uniform(rng, box.Lo, box.Hi)
			pre, _ := boundstest.Trace(f, x)
			var j [][]float64 // the exact Jacobian of the layer's pre-activations
			for l, layer := range f.Layers {
				next := make([][]float64, layer.Out())
				for r := range next {
					next[r] = make([]float64, 3)
					for c := range layer.In() {
						w := layer.W.At(r, c)
						for i := range 3 {
							if l == 0 {
								next[r][c] = w
								break
							}
							if pre[l-1][c] > 0 {
								next[r][i] += w * j[c][i]
							}
						}
					}
					for i, v := range next[r] {
						if lo, hi := jac[l].lo[r*3+i], jac[l].hi[r*3+i]; v < lo-1e-9 || v > hi+1e-9 {
							t.Fatalf("seed %d layer %d: d a_%d / d x_%d = %g outside [%g, %g]", seed, l, r, i, v, lo, hi)
						}
					}
				}
				j = next
			}
		}
		s := Difference(f, g, pb, []int{0, 1}, box.Lo, box.Hi)
		if len(s) != 3 {
			t.Fatalf("seed %d: smear %v", seed, s)
		}
		for _, v := range s {
			if !(v >= 0) {
				t.Fatalf("seed %d: smear %v", seed, s)
			}
		}
	}
}

// perturb returns a copy of f with every weight and bias moved by noise
// of standard deviation 0.01.
func perturb(f *nn.Network, rng *rand.Rand) *nn.Network {
	g := f.Clone()
	for _, layer := range g.Layers {
		r, c := layer.W.Dims()
		for i := range r {
			for j := range c {
				layer.W.Set(i, j, layer.W.At(i, j)+0.01*rng.NormFloat64())
			}
			layer.B[i] += 0.01 * rng.NormFloat64()
		}
	}
	return g
}
