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

// TestAnnealAlignsRoundings checks the annealing phase on a hand-made
// pair whose worst case is known: f1(x) = sum x_i on [0, 1]^16 against
// f2, the same sum of the inputs quantised to steps of 1/8, re-quantised
// to steps of 1/2. The error
//
//	f1(x) - f2(x) = sum (x_i - q(x_i)) + (S - q'(S)),  S = sum q(x_i),
//
// has supremum 16/16 + 1/4 (every input just below the top of its cell,
// S = 1/4 mod 1, which rounds half to even downwards), where all 17
// roundings have the same sign, and the straight-through gradients of the
// two networks cancel. The phase alone (every other phase off: it starts
// from the box's lower corner, error 0) must come within 1 % of it, at an
// input where the networks' own evaluation gives the error reported.
func TestAnnealAlignsRoundings(t *testing.T) {
	const n = 16
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	id := nn.Activation{Kind: nn.Identity}
	f1 := &nn.Network{Layers: []nn.Layer{{W: mat.NewDense(1, n, ones), B: []float64{0}, Act: id}}}
	f2 := &nn.Network{
		Input: &nn.Quantiser{Scale: []float64{1.0 / 8}, Zero: []int64{0}, Lo: nn.Uint8Lo, Hi: nn.Uint8Hi},
		Layers: []nn.Layer{{W: mat.NewDense(1, n, ones), B: []float64{0}, Act: id,
			Pre: &nn.Quantiser{Scale: []float64{0.5}, Zero: []int64{0}, Lo: nn.Uint8Lo, Hi: nn.Uint8Hi}}},
	}
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range hi {
		hi[i] = 1
	}
	o := Options{AnnealEvals: 20000, Seed: 1}
	res, err := MaxError(context.Background(), f1, f2, spec.Inputs{Box: spec.Box{Lo: lo, Hi: hi}}, spec.Quantity{}, o)
	if err != nil {
		t.Fatal(err)
	}
	const sup = 1.25
	checkReal(t, f1, f2, res, spec.Quantity{})
	if res.Error > sup || res.Error < 0.99*sup {
		t.Errorf("error found %v, want within 1 %% below the supremum %v", res.Error, sup)
	}
}

// TestAnnealFindsMore checks that the annealing phase makes the default
// search find errors at least as large, and larger in half the trials
// at least, on random int8 copies of random MLPs (24
// inputs, two hidden layers) over small boxes, where the roundings of
// every layer matter; every error must be real.
func TestAnnealFindsMore(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	relu := nn.Activation{Kind: nn.ReLU}
	gained := 0
	const trials = 4
	for trial := range trials {
		f := boundstest.Network(rng, []int{24, 32, 32, 4}, 1, relu)
		lo, hi := make([]float64, 24), make([]float64, 24)
		var xs [][]float64
		for i := range lo {
			c := rng.Float64()
			lo[i], hi[i] = c-0.05, c+0.05
		}
		for range 200 {
			x := make([]float64, 24)
			for i := range x {
				x[i] = 2*rng.Float64() - 1
			}
			xs = append(xs, x)
		}
		r, err := quantise.SampleRanges(f, xs)
		if err != nil {
			t.Fatal(err)
		}
		fq, err := quantise.Int8(f, r, quantise.Int8Options{Bits: 8, PerChannel: trial%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		in, q := spec.Inputs{Box: spec.Box{Lo: lo, Hi: hi}}, spec.Quantity{Norm: spec.Norm2}
		var found [2]float64
		for k, evals := range []int{0, DefaultOptions().AnnealEvals} {
			o := DefaultOptions()
			o.AnnealEvals = evals
			res, err := MaxError(context.Background(), f, fq, in, q, o)
			if err != nil {
				t.Fatal(err)
			}
			checkReal(t, f, fq, res, q)
			found[k] = res.Error
		}
		t.Logf("trial %d: %.5g without the phase, %.5g with it", trial, found[0], found[1])
		switch {
		case found[1] < found[0]:
			t.Errorf("trial %d: the annealing phase lost ground: %v, %v without it", trial, found[1], found[0])
		case found[1] > found[0]:
			gained++
		}
	}
	if 2*gained < trials {
		t.Errorf("the annealing phase found a larger error in %d of %d trials", gained, trials)
	}
}

// checkReal fails t unless res.Error is the error of f1 and f2 at res.X1,
// res.X2 as their Eval computes it.
func checkReal(t *testing.T, f1, f2 *nn.Network, res *Result, q spec.Quantity) {
	t.Helper()
	y1, err1 := f1.Eval(res.X1)
	y2, err2 := f2.Eval(res.X2)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if e := q.Measure(y1, y2); e != res.Error {
		t.Fatalf("error %v reported, %v at its inputs", res.Error, e)
	}
}

// TestWalkReachesTarget checks search.Walk on an objective of a caller's,
// negative everywhere but at one grid point: minus the distance of the
// grid point of x to a target on [0, 1]^8 with steps of 1/8, from the
// lower corner (value -4.25).
func TestWalkReachesTarget(t *testing.T) {
	q := &nn.Quantiser{Scale: []float64{1.0 / 8}, Zero: []int64{0}, Lo: nn.Uint8Lo, Hi: nn.Uint8Hi}
	target := []float64{0.5, 0.125, 1, 0.875, 0.25, 0.625, 0, 0.375}
	lo, hi := make([]float64, 8), make([]float64, 8)
	for i := range hi {
		hi[i] = 1
	}
	evals := 0
	w := Walk{Grid: q, Box: spec.Box{Lo: lo, Hi: hi}, Evals: 3000,
		Value: func(x []float64) float64 {
			evals++
			d := 0.0
			for i, v := range x {
				d += math.Abs(q.Apply(i, v) - target[i])
			}
			return -d
		}}
	x, v := w.Run(lo, rand.New(rand.NewPCG(1, 2)))
	if v != 0 || evals > 3000 {
		t.Fatalf("walk ended at %v, value %v, after %d evaluations; want the target's cell, 0, at most 3000", x, v, evals)
	}
	for i := range x {
		if q.Apply(i, x[i]) != target[i] {
			t.Fatalf("walk ended at %v, value 0, outside the target's cells", x)
		}
	}
}
