package sdptest

import (
	"math/rand/v2"

	"github.com/nnbound/nnbound/sdp"
)

// RandomMaxCut returns the max-cut relaxation of a random graph on n
// vertices with edge probability density and weights 1, in the form of
// SDPLIB's mcp problems:
//
//	maximise L/4 • Y  subject to  Y_ii = 1,  Y >= 0,
//
// with L the Laplacian: F_0 = L/4, F_i = e_i e_i^T, c_i = 1. Both sides
// are strictly feasible (Y = I; x_i large).
func RandomMaxCut(seed uint64, n int, density float64) *sdp.Problem {
	rng := rand.New(rand.NewPCG(seed, 0x3c7))
	deg := make([]float64, n)
	p := &sdp.Problem{Blocks: []sdp.Block{{Size: n}}, C: make([]float64, n), F: make([]sdp.Matrix, n+1)}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < density {
				p.F[0] = append(p.F[0], sdp.Entry{I: i, J: j, V: -0.25})
				deg[i]++
				deg[j]++
			}
		}
	}
	for i := 0; i < n; i++ {
		if deg[i] != 0 {
			p.F[0] = append(p.F[0], sdp.Entry{I: i, J: i, V: deg[i] / 4})
		}
		p.C[i] = 1
		p.F[i+1] = sdp.Matrix{{I: i, J: i, V: 1}}
	}
	return p
}
