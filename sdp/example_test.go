package sdp_test

import (
	"context"
	"fmt"

	"github.com/nnbound/nnbound/sdp"
)

// The largest eigenvalue of [[2, 1], [1, 2]] is 3:
//
//	minimise t  subject to  t I - [[2, 1], [1, 2]] >= 0.
func ExampleSolve() {
	p := &sdp.Problem{
		Blocks: []sdp.Block{{Size: 2}},
		C:      []float64{1},
		F: []sdp.Matrix{
			{{I: 0, J: 0, V: 2}, {I: 0, J: 1, V: 1}, {I: 1, J: 1, V: 2}}, // F_0
			{{I: 0, J: 0, V: 1}, {I: 1, J: 1, V: 1}},                     // F_1 = I
		},
	}
	r, err := sdp.Solve(context.Background(), p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: t = %.6f, Y = %.4f\n", r.Status, r.X[0], r.Y[0])
	// Output:
	// optimal: t = 3.000000, Y = [0.5000 0.5000 0.5000 0.5000]
}
