package prune_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/prune"
)

// Neuron pruning zeroes the incoming rows of the hidden neurons after the
// first hidden layer with the smallest 2-norms; their biases stay.
func ExampleNeurons() {
	relu := nn.Activation{Kind: nn.ReLU}
	net := &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(2, 1, []float64{1, -1}), B: []float64{0, 0}, Act: relu},
		{W: mat.NewDense(3, 2, []float64{3, 4, 0.5, 0, 1, -1}), B: []float64{1, 2, 3}, Act: relu},
		{W: mat.NewDense(1, 3, []float64{1, 1, 1}), B: []float64{0}},
	}}
	pruned, chosen, err := prune.Neurons(net, prune.NeuronOptions{Count: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range chosen {
		fmt.Printf("layer %d neuron %d norm %.3g\n", n.Layer, n.Index, n.Norm)
	}
	fmt.Println(mat.Formatted(pruned.Layers[1].W), pruned.Layers[1].B)
	// Output:
	// layer 1 neuron 1 norm 0.5
	// layer 1 neuron 2 norm 1.41
	// ⎡3  4⎤
	// ⎢0  0⎥
	// ⎣0  0⎦ [1 2 3]
}
