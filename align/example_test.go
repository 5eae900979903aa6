package align_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/align"
	"github.com/nnbound/nnbound/nn"
)

func ExampleAlign() {
	relu := nn.Activation{Kind: nn.ReLU}
	f := &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(3, 2, []float64{1, 0, 0, 1, 1, 1}), B: []float64{0, 0.5, -1}, Act: relu},
		nn.AffineLayer(mat.NewDense(1, 3, []float64{1, -1, 2}), []float64{0}),
	}}
	// g: f's neurons in the order 2, 0, 1, slightly perturbed, and
	// neuron 1 pruned.
	g := &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(3, 2, []float64{1.01, 1, 1, 0, 0, 0}), B: []float64{-1, 0, 0}, Act: relu},
		nn.AffineLayer(mat.NewDense(1, 3, []float64{2, 1, 0}), []float64{0}),
	}}
	h, rep, err := align.Align(f, g, align.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep)
	fmt.Println(mat.Formatted(h.Layers[0].W, mat.Squeeze()))
	// Output:
	// aligned: {0: 2 matched, 1 unmatched, 3 moved}
	// ⎡   1  0⎤
	// ⎢   0  0⎥
	// ⎣1.01  1⎦
}
