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

// NoInteriorFactors is NoInterior with the debris of x2 given as factors
// that cancel, as certificate SDPs give a symmetric product of a unit
// vector and a vanishing one:
//
//	F_2 = (u u^T - v v^T)/4 (+) e_1,  u = e_1 + 1e-40 e_3,  v = e_1 - 1e-40 e_3,
//
// whose PSD part is 5e-41 (e_1 e_3^T + e_3 e_1^T): no real entry, although
// each factor has one of order one.
func NoInteriorFactors() Case {
	c := NoInterior()
	p := c.Problem
	p.F[2] = sdp.Matrix{{Block: 1, I: 0, J: 0, V: 1}}
	u := sdp.SparseVec{Index: []int{0, 2}, Value: []float64{1, 1e-40}}
	v := sdp.SparseVec{Index: []int{0, 2}, Value: []float64{1, -1e-40}}
	p.Factors = [][]sdp.Factor{nil, nil, {{Block: 0, D: 0.25, U: u}, {Block: 0, D: -0.25, U: v}}, nil}
	c.Name = "no-interior-factors"
	return c
}
