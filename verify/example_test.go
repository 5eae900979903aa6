package verify_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
)

// f(x) = relu(x) and its copy g(x) = relu(1.02 x - 0.01) on [-1, 1]: they
// differ by at most 0.01 (at x = 1; g - f = 0.02 x - 0.01 where both are
// on).
func ExampleDecide() {
	net := func(w, b float64) *nn.Network {
		return &nn.Network{Layers: []nn.Layer{
			{W: mat.NewDense(1, 1, []float64{w}), B: []float64{b}, Act: nn.Activation{Kind: nn.ReLU}},
			{W: mat.NewDense(1, 1, []float64{1}), B: []float64{0}, Act: nn.Activation{Kind: nn.Identity}},
		}}
	}
	f, g := net(1, 0), net(1.02, -0.01)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1}, Hi: []float64{1}}}
	for _, eps := range []float64{0.02, 0.005} {
		res, err := verify.Decide(context.Background(), f, g, in, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{eps}}, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("eps %g: %v", eps, res.Status)
		if res.Status == verify.Holds {
			fmt.Printf(", bound %.3f\n", res.Bound)
		} else {
			fmt.Printf(" at x = %.3f, difference %.4f\n", res.Counterexample.X[0], res.Counterexample.Diff[0])
		}
	}
	// Output:
	// eps 0.02: holds, bound 0.010
	// eps 0.005: violated at x = 1.000, difference 0.0100
}
