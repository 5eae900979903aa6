package verify

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// copyKind is how the second network of a soundness instance is made.
type copyKind int

const (
	permuted  copyKind = iota // hidden neurons reordered: the same function
	pruned                    // some hidden neurons removed (zero rows)
	perturbed                 // weights and biases moved by small noise
	close                     // weights and biases moved by a relative 1e-4 (closeCopy)
)

// makeCopy returns the copy of f of the kind k, drawn with rng.
func makeCopy(f *nn.Network, k copyKind, rng *rand.Rand) *nn.Network {
	g := f.Clone()
	for l := range len(g.Layers) - 1 {
		layer, next := &g.Layers[l], &g.Layers[l+1]
		n := layer.Out()
		switch k {
		case permuted:
			p := rng.Perm(n)
			w, b, wn := f.Layers[l].W, f.Layers[l].B, g.Layers[l+1].W
			old := mat0(wn)
			for i, j := range p {
				layer.W.SetRow(i, w.RawRowView(j))
				layer.B[i] = b[j]
				for r := range next.Out() {
					wn.Set(r, i, old[r][j])
				}
			}
		case pruned:
			for i := range n {
				if rng.Float64() < 0.25 {
					layer.W.SetRow(i, make([]float64, layer.In()))
					layer.B[i] = 0
				}
			}
		}
	}
	if k == close {
		for _, layer := range g.Layers {
			r, c := layer.W.Dims()
			for i := range r {
				for j := range c {
					layer.W.Set(i, j, layer.W.At(i, j)*(1+1e-4*rng.NormFloat64()))
				}
				layer.B[i] *= 1 + 1e-4*rng.NormFloat64()
			}
		}
	}
	if k == perturbed {
		for _, layer := range g.Layers {
			r, c := layer.W.Dims()
			for i := range r {
				for j := range c {
					layer.W.Set(i, j, layer.W.At(i, j)+0.01*rng.NormFloat64())
				}
				layer.B[i] += 0.01 * rng.NormFloat64()
			}
		}
	}
	return g
}

// mat0 returns a copy of w's entries as rows.
func mat0(w interface {
	Dims() (int, int)
	At(int, int) float64
}) [][]float64 {
	r, c := w.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range c {
			out[i][j] = w.At(i, j)
		}
	}
	return out
}

// TestSoundRandomPairs decides epsilon-equivalence of small random pairs
// around their largest attained difference M (exact for one input,
// breakpoint enumeration; a lower bound from a dense grid and local search
// for two): with eps below M no Holds may be returned; every Violated is
// re-evaluated; every bound is at least M. A third of the pairs feed g the
// quantised input; half bound their nodes forward first (Options.Forward);
// a third split by each rule (the interval smear, the gradient, the
// difference smear).
func TestSoundRandomPairs(t *testing.T) {
	count := map[Status]int{}
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 11))
		nx, nf := 1+int(seed%2), 1+int(seed/2%2)
		f, err := randnet.New(rng, []int{nx, 6, 6, nf})
		if err != nil {
			t.Fatal(err)
		}
		kind := copyKind(seed / 4 % 3)
		g := makeCopy(f, kind, rng)
		box := spec.Box{Lo: make([]float64, nx), Hi: make([]float64, nx)}
		for i := range nx {
			box.Lo[i], box.Hi[i] = -1, 0.5+rng.Float64()
		}
		in := spec.Inputs{Box: box}
		if seed%3 == 2 { // g fed the input quantised to 3 fractional bits
			in.Pairing, in.Quant = spec.QuantisedInput, quantise.Format{FracBits: 3, Rounding: quantise.Nearest}
		}
		soundCase(t, seed, kind, f, g, in, count)
	}
	t.Logf("verdicts: holds %d, violated %d, unknown %d", count[Holds], count[Violated], count[Unknown])
}

// TestSoundCloseCopies is TestSoundRandomPairs on close copies, which
// Decide bounds through f and the difference (closeCopy).
func TestSoundCloseCopies(t *testing.T) {
	count := map[Status]int{}
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 12))
		nx := 1 + int(seed%2)
		f, err := randnet.New(rng, []int{nx, 6, 6, 2})
		if err != nil {
			t.Fatal(err)
		}
		g := makeCopy(f, close, rng)
		if !closeCopy(f, g) {
			t.Fatalf("seed %d: the copy is not close", seed)
		}
		if closeCopy(f, makeCopy(f, pruned, rng)) || closeCopy(f, makeCopy(f, perturbed, rng)) {
			t.Fatalf("seed %d: a pruned or perturbed copy taken for a close one", seed)
		}
		box := spec.Box{Lo: make([]float64, nx), Hi: make([]float64, nx)}
		for i := range nx {
			box.Lo[i], box.Hi[i] = -1, 0.5+rng.Float64()
		}
		soundCase(t, seed, close, f, g, spec.Inputs{Box: box}, count)
	}
	t.Logf("verdicts: holds %d, violated %d, unknown %d", count[Holds], count[Violated], count[Unknown])
}

// soundCase decides the instance with every norm and eps around its
// largest attained difference and checks each result (checkResult).
func soundCase(t *testing.T, seed uint64, kind copyKind, f, g *nn.Network, in spec.Inputs, count map[Status]int) {
	t.Helper()
	for _, norm := range []spec.Norm{spec.PerOutput, spec.NormInf, spec.Norm2} {
		so := search.DefaultOptions()
		so.Samples, so.Grid = 2000, 101
		q := spec.Quantity{Norm: spec.NormInf}
		if norm == spec.Norm2 {
			q.Norm = spec.Norm2
		}
		found, err := search.MaxError(context.Background(), f, g, in, q, so)
		if err != nil {
			t.Fatal(err)
		}
		m := found.Error
		slack := evalSlack(f, g, found.X1, found.X2)
		for _, scale := range []float64{0.9, 1 - 1e-9, 1.05, 2} {
			name := fmt.Sprintf("seed %d kind %d norm %v eps %.3g M", seed, kind, norm, scale)
			eps := scale * m
			if !(eps > 0) {
				eps = 1e-3
			}
			o := DefaultOptions()
			o.MaxNodes, o.Batch = 100, 4
			o.Forward = seed%2 == 0
			o.Split = []SplitRule{SplitInterval, SplitGradient, SplitDifference}[(seed+seed/3)%3]
			if seed >= 3 { // the root's search.MaxError on the first seeds only, for time
				o.SearchRatio = 2
			}
			res, err := Decide(context.Background(), f, g, in, spec.Tolerance{Norm: norm, Eps: []float64{eps}}, &o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkResult(t, name, f, g, in, norm, eps, m, slack, res)
			count[res.Status]++
		}
	}
}

// evalSlack returns how far a difference evaluated in float64 at (x1, x2)
// may lie above the exact one: rounding of each output, relative to the
// outputs' magnitude (a difference of 1e-2 between outputs near 1e2 has
// its last digits near 1e-14).
func evalSlack(f, g *nn.Network, x1, x2 []float64) float64 {
	yf, _ := f.Eval(x1)
	yg, _ := g.Eval(x2)
	scale := 1.0
	for k := range yf {
		scale = max(scale, math.Abs(yf[k]), math.Abs(yg[k]))
	}
	return 1e-13 * scale
}

// checkResult asserts what any verdict must satisfy given the attained
// measure m (a lower bound of the supremum, evaluated in float64 to
// within slack).
func checkResult(t *testing.T, name string, f, g *nn.Network, in spec.Inputs, norm spec.Norm, eps, m, slack float64, res *Result) {
	t.Helper()
	if res.Status == Holds && m >= eps {
		t.Errorf("%s: holds with bound %g, but a difference of %g >= eps %g is attained", name, res.Bound, m, eps)
	}
	// Seed 0 of TestSoundCloseCopies: a bound 5e-13 (relative) below m,
	// with or without Within and SecondByDifference.
	if res.Bound < m-slack {
		t.Errorf("%s: bound %g below the attained %g", name, res.Bound, m)
	}
	if res.Status == Holds && !(res.Bound < eps) {
		t.Errorf("%s: holds with bound %g >= eps %g", name, res.Bound, eps)
	}
	if res.Status != Violated {
		return
	}
	x := res.Counterexample.X
	if !in.Box.Contains(x) {
		t.Fatalf("%s: counterexample %v outside the box", name, x)
	}
	yf, _ := f.Eval(x)
	yg, _ := g.Eval(in.X2(x))
	d := make([]float64, len(yf))
	worst, sq := 0.0, 0.0
	for k := range d {
		d[k] = yg[k] - yf[k]
		worst = max(worst, math.Abs(d[k]))
		sq += d[k] * d[k]
	}
	if norm == spec.Norm2 {
		worst = math.Sqrt(sq)
	}
	if !(worst > eps) {
		t.Errorf("%s: violated, but the counterexample's difference %g is not above eps %g", name, worst, eps)
	}
}
