package sdptest

import "github.com/nnbound/nnbound/sdp"

// NoInterior is a problem without an interior on either side, of the
// shape certificate SDPs take when a neuron drops out (a row no
// constraint touches, entries of 1e-40 left where it was, multipliers
// whose dual coordinate is forced to zero):
//
//	minimise   x1
//	subject to X = diag(x1 I - A, 1e-40 x2) (+) diag(x2, 1 - x3) >= 0,
//	           A = [2 1; 1 2],
//
// so row 3 of the PSD block is zero up to the debris. The optimum is
// lambda_max(A) = 3 at x1 = 3 with any x2 >= 0 and x3 <= 1; in the dual
// max A • Y[1:2,1:2] - Y_b2 s.t. tr Y[1:2,1:2] = 1, Y_b1 + 1e-40 Y_33 = 0,
// -Y_b2 = 0, the LP coordinates are forced to zero.
func NoInterior() Case {
	p := &sdp.Problem{
		Blocks: []sdp.Block{{Size: 3}, {Size: 2, Diagonal: true}},
		C:      []float64{1, 0, 0},
		F: []sdp.Matrix{
			{{Block: 0, I: 0, J: 0, V: 2}, {Block: 0, I: 0, J: 1, V: 1}, {Block: 0, I: 1, J: 1, V: 2},
				{Block: 1, I: 1, J: 1, V: -1}},
			{{Block: 0, I: 0, J: 0, V: 1}, {Block: 0, I: 1, J: 1, V: 1}},
			{{Block: 0, I: 2, J: 2, V: 1e-40}, {Block: 1, I: 0, J: 0, V: 1}},
			{{Block: 1, I: 1, J: 1, V: -1}},
		},
	}
	return Case{Name: "no-interior", Problem: p, Status: sdp.Optimal, Optimum: 3}
}
