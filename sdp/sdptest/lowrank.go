package sdptest

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/sdp"
)

// RotatedLowRank exercises rank-one constraint matrices given as
// sdp.Factor, next to an LP block. With an orthogonal Q made of 2 x 2
// rotations by 30 degrees (so each column has two nonzeros) and a_i = i+1,
// the constraint matrices are F_i = a_i^2 q_i q_i^T (q_i the i-th column
// of Q; for odd n the last column is e_n) in the PSD block of order n, plus the entry 1 at (i, i)
// of a diagonal block of order n. With F_0 = I in both blocks,
//
//	minimise sum_i x_i  subject to  Q diag(a_i^2 x_i) Q^T - I >= 0,
//	                                x_i - 1 >= 0,
//
// the PSD constraint is diag(a_i^2 x_i - 1) >= 0, that is x_i >= 1/a_i^2,
// weaker than the LP one, so the optimum is x = 1 with value n. The dual
// puts Y = 0 on the PSD block and 1 on the diagonal one.
//
// For a binding PSD block, see RotatedLowRankTight.
func RotatedLowRank(n int) Case {
	return rotated(n, 1, "lowrank")
}

// RotatedLowRankTight is RotatedLowRank with the LP lower bounds at 0, so
// that the PSD block binds: x_i = 1/a_i^2 and the optimum is
// sum_i 1/(i+1)^2.
func RotatedLowRankTight(n int) Case {
	return rotated(n, 0, "lowrank-tight")
}

func rotated(n int, lpBound float64, name string) Case {
	c, s := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
	p := &sdp.Problem{
		Blocks:  []sdp.Block{{Size: n}, {Size: n, Diagonal: true}},
		F:       make([]sdp.Matrix, n+1),
		Factors: make([][]sdp.Factor, n+1),
	}
	opt := 0.0
	for i := 0; i < n; i++ {
		p.F[0] = append(p.F[0], sdp.Entry{Block: 0, I: i, J: i, V: 1})
		if lpBound != 0 {
			p.F[0] = append(p.F[0], sdp.Entry{Block: 1, I: i, J: i, V: lpBound})
		}
		// Column i of Q: rotation of the pair (2k, 2k+1).
		k := i / 2 * 2
		u := sdp.SparseVec{Index: []int{k, k + 1}, Value: []float64{c, s}}
		switch {
		case k+1 == n:
			u = sdp.SparseVec{Index: []int{k}, Value: []float64{1}}
		case i%2 == 1:
			u.Value = []float64{-s, c}
		}
		a := float64(i + 1)
		p.C = append(p.C, 1)
		p.F[i+1] = sdp.Matrix{{Block: 1, I: i, J: i, V: 1}}
		p.Factors[i+1] = []sdp.Factor{{Block: 0, D: a * a, U: u}}
		opt += max(lpBound, 1/(a*a))
	}
	return Case{Name: fmt.Sprintf("%s-%d", name, n), Problem: p, Status: sdp.Optimal, Optimum: opt}
}
