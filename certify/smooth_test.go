package certify

import (
	"context"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// tanhOut is the 5-32-32-2 ReLU controller with a tanh output layer of
// testdata/tanhout (made by its generate.py).
const tanhOut = "testdata/tanhout/tanhout.onnx"

// sweepTanhOut certifies the quantised copies of the tanh-output
// controller at each width in fbs over [-1, 1]^5, x2 = q(x1), with no time
// budget (the result does not depend on the machine), and returns the
// certificates.
func sweepTanhOut(t *testing.T, fbs []int, set func(*Options)) []*Certificate {
	t.Helper()
	f1, _, err := modelfile.Load(tanhOut, modelfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	box := spec.Box{Lo: []float64{-1, -1, -1, -1, -1}, Hi: []float64{1, 1, 1, 1, 1}}
	var out []*Certificate
	for _, fb := range fbs {
		q := quantise.Format{FracBits: fb, Rounding: quantise.Trunc}
		f2, err := quantise.Network(f1, quantise.Options{Weights: q, Biases: q})
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultOptions()
		o.Refine.TimeBudget = 0
		o.Samples = 500
		set(&o)
		in := spec.Inputs{Box: box, Pairing: spec.QuantisedInput, Quant: q}
		c, err := Bound(context.Background(), f1, f2, in, spec.Quantity{}, o)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Certified() {
			t.Fatalf("FB %d: not certified: %v", fb, c.Reason)
		}
		t.Logf("FB %2d: bound %.4g, observed %.4g, ratio %.3f", fb, c.Bound, c.ObservedError, c.Bound/c.ObservedError)
		out = append(out, c)
	}
	return out
}

// TestTanhOutputInterval: bound propagation's bound on the tanh-output
// controller stays below the trivial 2 sqrt(2) of two tanh outputs,
// falls with every added fractional bit from FB 3 on (FB 2's copy happens
// to be closer than FB 3's), and stays within the measured ratio of the
// largest error found (3.7 at FB 8, at most 5.7 from FB 5 on; without
// slicing the pre-activations, 4.5 at FB 8).
func TestTanhOutputInterval(t *testing.T) {
	fbs := []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	cs := sweepTanhOut(t, fbs, func(o *Options) { o.Method = MethodPropagation })
	for i, c := range cs {
		if c.Bound >= 2.8284 {
			t.Errorf("FB %d: bound %v is the trivial range of the outputs", fbs[i], c.Bound)
		}
		if i > 1 && c.Bound > cs[i-1].Bound {
			t.Errorf("FB %d: bound %v above FB %d's %v", fbs[i], c.Bound, fbs[i-1], cs[i-1].Bound)
		}
		if r := c.Bound / c.ObservedError; fbs[i] >= 5 && r > 6 || fbs[i] == 8 && r > 4 {
			t.Errorf("FB %d: bound / observed error = %v, want <= 6 (4 at FB 8)", fbs[i], r)
		}
	}
}

// TestTanhOutputCertified (NNBOUND_LONG=1, minutes): the certified bound at
// FB 8 with refinement up to 64 pieces is within twice the largest error
// found.
func TestTanhOutputCertified(t *testing.T) {
	if os.Getenv("NNBOUND_LONG") == "" {
		t.Skip("NNBOUND_LONG not set")
	}
	c := sweepTanhOut(t, []int{8}, func(*Options) {})[0]
	if r := c.Bound / c.ObservedError; r > 2 {
		t.Errorf("FB 8: bound / observed error = %v, want <= 2", r)
	}
}

// TestTrivialBound checks the bound of the output activations' ranges
// and the note it gives.
func TestTrivialBound(t *testing.T) {
	net := func(k nn.ActivationKind) *nn.Network {
		return &nn.Network{Layers: []nn.Layer{{W: mat.NewDense(2, 1, []float64{1, 2}), B: []float64{0, 0}, Act: nn.Activation{Kind: k}}}}
	}
	for _, tc := range []struct {
		k1, k2 nn.ActivationKind
		norm   spec.Norm
		c      []float64
		want   float64
	}{
		{nn.Tanh, nn.Tanh, spec.Norm2, nil, 2 * math.Sqrt2},
		{nn.Tanh, nn.Tanh, spec.NormInf, nil, 2},
		{nn.Sigmoid, nn.Sigmoid, spec.Norm2, []float64{1, -3}, 4},
		{nn.Sigmoid, nn.Tanh, spec.NormInf, nil, 2},
		{nn.Tanh, nn.Identity, spec.Norm2, nil, math.Inf(1)},
	} {
		got := trivialBound(net(tc.k1), net(tc.k2), spec.Quantity{Norm: tc.norm, C: tc.c})
		if math.Abs(got-tc.want) > 1e-12 && got != tc.want {
			t.Errorf("%v, %v, %v, c %v: got %v, want %v", tc.k1, tc.k2, tc.norm, tc.c, got, tc.want)
		}
	}
	c := &Certificate{Status: Certified, Bound: 2 * math.Sqrt2, Trivial: 2 * math.Sqrt2}
	if !c.IsTrivial() {
		t.Error("a bound equal to the trivial one is not reported")
	}
	if c.Bound = 2.8; c.IsTrivial() {
		t.Error("a bound below the trivial one is reported")
	}
	if c = (&Certificate{Status: Certified, Bound: 1}); c.IsTrivial() {
		t.Error("a certificate without Trivial is reported")
	}
}
