package bounds_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// A two-neuron ReLU network and a copy with one weight changed by 0.01: the
// output difference over the box [-1, 1] is enclosed far more tightly by the
// differential bound than by subtracting the two networks' ranges.
//
// f1(x) = relu(x) + relu(0.5 - x) and f2(x) = relu(1.01 x) + relu(0.5 - x).
func ExamplePair() {
	f1 := &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(2, 1, []float64{1, -1}), B: []float64{0, 0.5}, Act: nn.Activation{Kind: nn.ReLU}},
		{W: mat.NewDense(1, 2, []float64{1, 1}), B: []float64{0}},
	}}
	f2 := f1.Clone()
	f2.Layers[0].W.Set(0, 0, 1.01)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1}, Hi: []float64{1}}, Pairing: spec.SameInput}
	pb, err := bounds.Pair(f1, f2, in, bounds.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	o := pb.Output[0]
	r1, r2 := pb.Net1.Post[1][0], pb.Net2.Post[1][0]
	fmt.Printf("f2 - f1 in [%.4f, %.4f]\n", o.Lo, o.Hi)
	fmt.Printf("ranges: f1 in [%.3f, %.3f], f2 in [%.3f, %.3f]\n", r1.Lo, r1.Hi, r2.Lo, r2.Hi)
	// Output:
	// f2 - f1 in [-0.0050, 0.0100]
	// ranges: f1 in [0.500, 1.500], f2 in [0.500, 1.500]
}
