package verify

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// gradientCase returns a random network of the given sizes, a random box
// of its inputs of width up to 0.25 w, a random output combination and
// the network's symbolic pre-activation bounds on the box.
func gradientCase(t *testing.T, rng *rand.Rand, sizes []int, w float64) (*nn.Network, spec.Box, []float64, [][]bounds.Interval) {
	t.Helper()
	f, err := randnet.New(rng, sizes)
	if err != nil {
		t.Fatal(err)
	}
	n := sizes[0]
	box := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range n {
		box.Lo[i] = rng.Float64()*2 - 1
		box.Hi[i] = box.Lo[i] + rng.Float64()*0.25*w
	}
	c := make([]float64, sizes[len(sizes)-1])
	for k := range c[:len(c)-1] { // the last output left out
		c[k] = rng.NormFloat64()
	}
	bo := bounds.DefaultOptions()
	bo.Method = bounds.MethodSymbolic
	nb, err := bounds.Single(f, box, bo)
	if err != nil {
		t.Fatal(err)
	}
	return f, box, c, nb.Pre
}

// TestOutwardGradientSound checks the enclosure of c^T J against the
// gradient at sampled points and corners of random boxes of random
// networks, small ones and ones with more straddling neurons than the
// enumeration takes as vertices (right derivatives at kinks lie in the
// enclosure too).
func TestOutwardGradientSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 30 {
		sizes, w := []int{4, 12, 10, 8, 3}, float64(trial%3)
		if trial >= 20 {
			sizes, w = []int{4, 30, 30, 30, 30, 3}, 2+float64(trial%3)
		}
		f, box, c, pre := gradientCase(t, rng, sizes, w)
		need := []bool{true, trial%2 == 0, true, trial%4 != 1}
		lo, hi := outwardGradient(f, pre, c, need)
		for s := range 400 {
			x := make([]float64, 4)
			for i := range x {
				u := rng.Float64()
				if s < 16 { // the corners
					u = float64(s >> i & 1)
				}
				x[i] = box.Lo[i] + u*(box.Hi[i]-box.Lo[i])
			}
			_, tr, err := search.Forward(f, x)
			if err != nil {
				t.Fatal(err)
			}
			for i, g := range tr.Backward(c) {
				if !need[i] && (lo[i] != math.Inf(-1) || hi[i] != math.Inf(1)) {
					t.Fatalf("trial %d: coordinate %d not needed, enclosure [%v, %v]", trial, i, lo[i], hi[i])
				}
				if g < lo[i] || g > hi[i] {
					t.Fatalf("trial %d: gradient %d at %v is %v, outside [%v, %v]", trial, i, x, g, lo[i], hi[i])
				}
			}
		}
	}
}

// TestOutwardGradientVertices checks that the enclosure is the range of
// c^T J over the vertices of the straddling neurons' slopes, enumerated
// one by one, when they are few enough to be enumerated (up to rounding),
// and encloses it when they are not (up to 16 straddling neurons).
func TestOutwardGradientVertices(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	exact := 0
	for trial := range 40 {
		f, _, c, pre := gradientCase(t, rng, []int{3, 10, 10, 10, 2}, 1+float64(trial%4))
		lo, hi := outwardGradient(f, pre, c, nil)
		vlo, vhi, k := vertexRange(f, pre, c)
		for i := range vlo {
			tol := 1e-12 * (1 + math.Abs(vlo[i]) + math.Abs(vhi[i]))
			if lo[i] > vlo[i] || hi[i] < vhi[i] {
				t.Fatalf("trial %d: coordinate %d: enclosure [%v, %v] misses the vertices' [%v, %v]", trial, i, lo[i], hi[i], vlo[i], vhi[i])
			}
			if k <= maxGradientPairs && (lo[i] < vlo[i]-tol || hi[i] > vhi[i]+tol) {
				t.Fatalf("trial %d: %d straddling neurons, coordinate %d: enclosure [%v, %v], the vertices' [%v, %v]", trial, k, i, lo[i], hi[i], vlo[i], vhi[i])
			}
		}
		if k <= maxGradientPairs {
			exact++
		}
	}
	if exact < 20 {
		t.Fatalf("only %d of 40 trials within the enumeration's limit", exact)
	}
}

// vertexRange returns the range of c^T J over every vertex of the
// straddling neurons' slopes, one backward pass each, and the number of
// straddling neurons (lo and hi nil when it is over 16).
func vertexRange(f *nn.Network, pre [][]bounds.Interval, c []float64) (lo, hi []float64, k int) {
	type neuron struct{ l, r int }
	var str []neuron
	for l := range f.Layers[:len(f.Layers)-1] {
		for r, z := range pre[l] {
			if z.Lo < 0 && z.Hi > 0 {
				str = append(str, neuron{l, r})
			}
		}
	}
	n := f.InputSize()
	lo, hi = make([]float64, n), make([]float64, n)
	for i := range n {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
	}
	if len(str) > 16 {
		return nil, nil, len(str) // too many to enumerate here
	}
	for v := range 1 << len(str) {
		g := append([]float64(nil), c...)
		for l := len(f.Layers) - 1; l >= 0; l-- {
			if f.Layers[l].Act.Kind == nn.ReLU {
				for r, z := range pre[l] {
					if z.Hi <= 0 {
						g[r] = 0
					}
				}
				for b, s := range str {
					if s.l == l && v>>b&1 == 0 {
						g[s.r] = 0
					}
				}
			}
			next := make([]float64, f.Layers[l].In())
			for r, gr := range g {
				for j := range next {
					next[j] += f.Layers[l].W.At(r, j) * gr
				}
			}
			g = next
		}
		for i, gi := range g {
			lo[i], hi[i] = min(lo[i], gi), max(hi[i], gi)
		}
	}
	return lo, hi, len(str)
}

// TestOutwardGradientExactZero checks that an input no path reaches (a
// zero column of the first layer, or every path cut by inactive neurons)
// has the enclosure [0, 0] exactly, which closes a strict atom.
func TestOutwardGradientExactZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	f, _, c, pre := gradientCase(t, rng, []int{3, 8, 8, 2}, 2)
	for r := range f.Layers[0].Out() {
		f.Layers[0].W.Set(r, 1, 0)
	}
	lo, hi := outwardGradient(f, pre, c, nil)
	if lo[1] != 0 || hi[1] != 0 {
		t.Fatalf("input 1 reaches no neuron, enclosure [%v, %v]", lo[1], hi[1])
	}
	for r := range pre[1] {
		pre[1][r] = bounds.Interval{Lo: -2, Hi: -1} // every neuron of layer 1 inactive
	}
	lo, hi = outwardGradient(f, pre, c, nil)
	for i := range lo {
		if lo[i] != 0 || hi[i] != 0 {
			t.Fatalf("layer 1 inactive, input %d: enclosure [%v, %v]", i, lo[i], hi[i])
		}
	}
}
