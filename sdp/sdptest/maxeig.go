package sdptest

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/sdp"
)

// MaxEigen is the largest eigenvalue of the n x n tridiagonal matrix
// A = tridiag(-1, 2, -1) as an SDP:
//
//	minimise t  subject to  t I - A >= 0,
//
// so F_1 = I, F_0 = A, and the dual is max A • Y s.t. tr Y = 1, Y >= 0.
// The eigenvalues of A are 2 - 2 cos(k pi/(n+1)), so the optimum is
// 2 + 2 cos(pi/(n+1)).
func MaxEigen(n int) Case {
	var f1, f0 sdp.Matrix
	for i := 0; i < n; i++ {
		f1 = append(f1, sdp.Entry{I: i, J: i, V: 1})
		f0 = append(f0, sdp.Entry{I: i, J: i, V: 2})
		if i+1 < n {
			f0 = append(f0, sdp.Entry{I: i, J: i + 1, V: -1})
		}
	}
	p := &sdp.Problem{
		Blocks: []sdp.Block{{Size: n}},
		C:      []float64{1},
		F:      []sdp.Matrix{f0, f1},
	}
	return Case{Name: fmt.Sprintf("maxeig-%d", n), Problem: p, Status: sdp.Optimal,
		Optimum: 2 + 2*math.Cos(math.Pi/float64(n+1))}
}
