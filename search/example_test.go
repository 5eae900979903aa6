package search_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// The error of y = relu(x) against the same network fed the input truncated
// to 2 fractional bits is largest just below a quantiser jump, where it
// approaches the step 0.25 without reaching it: the search returns the
// float64 just below 0.25 (and q of it, 0). It is exact here (one input,
// piecewise-linear networks).
func ExampleMaxError() {
	f := &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(1, 1, []float64{1}), B: []float64{0}, Act: nn.Activation{Kind: nn.ReLU}},
	}}
	in := spec.Inputs{
		Box:     spec.Box{Lo: []float64{-1}, Hi: []float64{1}},
		Pairing: spec.QuantisedInput,
		Quant:   quantise.Format{FracBits: 2, Rounding: quantise.Trunc},
	}
	r, err := search.MaxError(context.Background(), f, f, in, spec.Quantity{}, search.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("error %.6f at x1 = %.6f, x2 = %.2f, exact %v\n", r.Error, r.X1[0], r.X2[0], r.Exact)
	// Output:
	// error 0.250000 at x1 = 0.250000, x2 = 0.00, exact true
}
