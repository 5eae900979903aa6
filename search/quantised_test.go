package search

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
	"gonum.org/v1/gonum/mat"
)

// TestExactQuantised checks the exact mode on one-input float/int8 pairs:
// the int8 network is constant between the jumps of its input quantiser,
// so the supremum is at a breakpoint, a jump or an end; no point of a
// dense grid may exceed the error found.
func TestExactQuantised(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 6 {
		f := boundstest.Network(rng, []int{1, 8, 8, 1 + rng.IntN(2)}, 1, nn.Activation{Kind: nn.ReLU})
		box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
		var xs [][]float64
		for g := range 101 {
			xs = append(xs, []float64{-1 + float64(g)/50})
		}
		r, err := quantise.SampleRanges(f, xs)
		if err != nil {
			t.Fatal(err)
		}
		fq, err := quantise.Int8(f, r, quantise.Int8Options{Bits: 4 + rng.IntN(5), PerChannel: trial%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		res, err := MaxError(context.Background(), f, fq, spec.Inputs{Box: box}, spec.Quantity{}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if !res.Exact {
			t.Fatalf("trial %d: the exact mode was not used", trial)
		}
		for g := range 20001 {
			x := []float64{-1 + float64(g)/10000}
			y1, _ := f.Eval(x)
			y2, _ := fq.Eval(x)
			e := 0.0
			for j := range y1 {
				e += (y1[j] - y2[j]) * (y1[j] - y2[j])
			}
			if e = math.Sqrt(e); e > res.Error*(1+1e-9) {
				t.Fatalf("trial %d: error %v at %v above the exact maximum %v", trial, e, x[0], res.Error)
			}
		}
	}
}

// TestBackwardSaturated checks the straight-through gradient of a
// quantised neuron: it passes the rounding (slope 1) and stops where the
// quantiser before or after the activation saturates.
func TestBackwardSaturated(t *testing.T) {
	q := &nn.Quantiser{Scale: []float64{0.1}, Zero: []int64{0}, Lo: -10, Hi: 10}   // range [-1, 1]
	post := &nn.Quantiser{Scale: []float64{0.1}, Zero: []int64{0}, Lo: -10, Hi: 5} // range [-1, 0.5]
	for _, tc := range []struct {
		name     string
		pre, out *nn.Quantiser
		x, want  float64
	}{
		{"inside", q, nil, 0.2, 2},
		{"above", q, nil, 0.7, 0},
		{"below", q, nil, -0.7, 0},
		{"post inside", nil, post, 0.2, 2},
		{"post above", nil, post, 0.3, 0},
	} {
		f := &nn.Network{Layers: []nn.Layer{{W: mat.NewDense(1, 1, []float64{2}), B: []float64{0},
			Act: nn.Activation{Kind: nn.Identity}, Pre: tc.pre, Post: tc.out}}}
		_, tr, err := Forward(f, []float64{tc.x})
		if err != nil {
			t.Fatal(err)
		}
		if g := tr.Backward([]float64{1}); g[0] != tc.want {
			t.Errorf("%s: gradient %v at %v, want %v", tc.name, g[0], tc.x, tc.want)
		}
	}
}
