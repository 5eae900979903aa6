package quantise_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
)

// The paper's quantiser: 2 fractional bits, truncation toward zero.
func ExampleNetwork() {
	net := &nn.Network{Layers: []nn.Layer{{
		W: mat.NewDense(1, 3, []float64{0.3, -0.3, 1.9}),
		B: []float64{-0.6},
	}}}
	f := quantise.Format{FracBits: 2, Rounding: quantise.Trunc}
	q, err := quantise.Network(net, quantise.Options{Weights: f, Biases: f})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(q.Layers[0].W.RawRowView(0), q.Layers[0].B)

	// With 1 integer bit, 1.9 does not fit in (-2, 2) once rounded up.
	f = quantise.Format{IntBits: 1, FracBits: 2, Rounding: quantise.Nearest}
	_, err = quantise.Network(net, quantise.Options{Weights: f, Biases: f})
	fmt.Println(err)
	// Output:
	// [0.25 -0.25 1.75] [-0.5]
	// quantise: layer 0 weights: 1 value out of the range of <1,2> nearest (largest magnitude 1.9, limit 1.75): value out of range
}

func ExampleRoundFloat16() {
	fmt.Println(quantise.RoundFloat16(0.1), quantise.RoundFloat16(65519), quantise.RoundFloat16(65520))
	// Output: 0.0999755859375 65504 +Inf
}
