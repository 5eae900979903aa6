package certify

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/spec"
)

// TestStructuredSkipsSDP certifies a CNN with a structured layer against
// its fixed-point copy: the SDP, whose constraints read dense matrices, is
// skipped and says why, the bound is propagation's, and it holds at
// random points of the box.
func TestStructuredSkipsSDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	c := &nn.Conv2D{InC: 1, InH: 4, InW: 4, OutC: 2, OutH: 4, OutW: 4, KH: 3, KW: 3,
		Stride: [2]int{1, 1}, Dil: [2]int{1, 1}, Pad: [2]int{1, 1}, Groups: 1, Kernel: make([]float64, 18)}
	for i := range c.Kernel {
		c.Kernel[i] = rng.NormFloat64()
	}
	conv, err := nn.ConvLayer(c, []float64{0.1, -0.1}, nn.Activation{Kind: nn.ReLU})
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, 32)
	for i := range w {
		w[i] = rng.NormFloat64() / 4
	}
	f1 := &nn.Network{Layers: []nn.Layer{conv, nn.AffineLayer(mat.NewDense(1, 32, w), []float64{0})}}
	qf := quantise.Format{FracBits: 3}
	f2, err := quantise.Network(f1, quantise.Options{Weights: qf, Biases: qf})
	if err != nil {
		t.Fatal(err)
	}
	o := testTask()
	o.Solve = func(context.Context, *sdp.Problem, *sdp.Settings) (*sdp.Result, error) {
		t.Fatal("the solver was called")
		return nil, nil
	}
	o.Refine.MaxPieces = 1
	box := spec.Box{Lo: make([]float64, 16), Hi: make([]float64, 16)}
	for i := range box.Hi {
		box.Hi[i] = 1
	}
	cert, err := o.bound(context.Background(), f1, f2, box)
	if err != nil {
		t.Fatal(err)
	}
	if !cert.Certified() || cert.Source != MethodPropagation || !strings.Contains(cert.SDPSkipped.String(), "convolutional") {
		t.Fatalf("certified %v, source %v, SDP skipped %q: want propagation's bound and the reason",
			cert.Certified(), cert.Source, cert.SDPSkipped)
	}
	for range 500 {
		x := make([]float64, 16)
		for i := range x {
			x[i] = rng.Float64()
		}
		y1, _ := f1.Eval(x)
		y2, _ := f2.Eval(x)
		if d := math.Abs(y1[0] - y2[0]); d > cert.Bound {
			t.Fatalf("error %v at %v exceeds the bound %v", d, x, cert.Bound)
		}
	}
}
