package sdptest

import "github.com/nnbound/nnbound/sdp"

// PrimalInfeasible has no x with
//
//	X = [[x, 1], [1, -x]] >= 0,
//
// as x >= 0 and -x >= 0 force x = 0 and then det X = -1 < 0. Here F_1 =
// diag(1, -1), F_0 = [[0, -1], [-1, 0]], c = 1. The dual, max -2 Y_12
// s.t. Y_11 - Y_22 = 1, Y >= 0, is unbounded: Y = [[t+1, -t], [-t, t]]
// proves it, as F_0 • Y = 2t grows while F_1 • Y stays 1; normalised,
// Y/(F_0 • Y) tends to a certificate with F_0 • Y = 1 and F_1 • Y -> 0.
func PrimalInfeasible() Case {
	p := &sdp.Problem{
		Blocks: []sdp.Block{{Size: 2}},
		C:      []float64{1},
		F: []sdp.Matrix{
			{{I: 0, J: 1, V: -1}},
			{{I: 0, J: 0, V: 1}, {I: 1, J: 1, V: -1}},
		},
	}
	return Case{Name: "primal-infeasible", Problem: p, Status: sdp.PrimalInfeasible}
}

// DualInfeasible is unbounded below:
//
//	minimise -x1 + x2  subject to  [[x1, x2], [x2, x1]] >= 0,
//
// that is x1 >= |x2|; x = (t, 0) has objective -t. The dual asks for
// Y >= 0 with tr Y = -1 and 2 Y_12 = 1, and tr Y >= 0 for every PSD Y,
// so it is infeasible; x = (1, 0) is the certificate (c^T x = -1,
// F_1 x_1 + F_2 x_2 = I >= 0).
func DualInfeasible() Case {
	p := &sdp.Problem{
		Blocks: []sdp.Block{{Size: 2}},
		C:      []float64{-1, 1},
		F: []sdp.Matrix{
			nil,
			{{I: 0, J: 0, V: 1}, {I: 1, J: 1, V: 1}},
			{{I: 0, J: 1, V: 1}},
		},
	}
	return Case{Name: "dual-infeasible", Problem: p, Status: sdp.DualInfeasible}
}
