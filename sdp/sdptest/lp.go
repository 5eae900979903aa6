package sdptest

import "github.com/nnbound/nnbound/sdp"

// LP is a linear program in one diagonal block:
//
//	minimise   x1 + 2 x2
//	subject to x1 + x2 >= 1,  x1 >= 0,  x2 >= 0,
//
// written as X = diag(x1 + x2 - 1, x1, x2) >= 0, so F_1 = diag(1, 1, 0),
// F_2 = diag(1, 0, 1), F_0 = diag(1, 0, 0). The optimum is 1 at x = (1, 0);
// the dual max y1 s.t. y1 + y2 = 1, y1 + y3 = 2, y >= 0 has y = (1, 0, 1).
func LP() Case {
	p := &sdp.Problem{
		Blocks: []sdp.Block{{Size: 3, Diagonal: true}},
		C:      []float64{1, 2},
		F: []sdp.Matrix{
			{{Block: 0, I: 0, J: 0, V: 1}},
			{{Block: 0, I: 0, J: 0, V: 1}, {Block: 0, I: 1, J: 1, V: 1}},
			{{Block: 0, I: 0, J: 0, V: 1}, {Block: 0, I: 2, J: 2, V: 1}},
		},
	}
	return Case{Name: "lp", Problem: p, Status: sdp.Optimal, Optimum: 1}
}
