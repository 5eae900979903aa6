package sdptest

import (
	"math"

	"github.com/nnbound/nnbound/sdp"
)

// ThetaC5 is the Lovasz theta number of the 5-cycle, sqrt 5 (Lovasz
// 1979), in the form of SDPLIB's theta problems:
//
//	maximise J • Y  subject to  tr Y = 1,  Y_ij = 0 for each edge ij,  Y >= 0
//
// so F_0 = J (all ones), F_1 = I with c_1 = 1, and one F_e = (E_ij +
// E_ji)/2 with c_e = 0 per edge. The primal is min x_1 s.t. x_1 I +
// sum_e x_e F_e - J >= 0.
func ThetaC5() Case {
	const n = 5
	var f0, f1 sdp.Matrix
	for i := 0; i < n; i++ {
		f1 = append(f1, sdp.Entry{I: i, J: i, V: 1})
		for j := i; j < n; j++ {
			f0 = append(f0, sdp.Entry{I: i, J: j, V: 1})
		}
	}
	p := &sdp.Problem{Blocks: []sdp.Block{{Size: n}}, C: []float64{1}, F: []sdp.Matrix{f0, f1}}
	for i := 0; i < n; i++ {
		j := (i + 1) % n
		p.C = append(p.C, 0)
		p.F = append(p.F, sdp.Matrix{{I: min(i, j), J: max(i, j), V: 0.5}})
	}
	return Case{Name: "theta-c5", Problem: p, Status: sdp.Optimal, Optimum: math.Sqrt(5)}
}
