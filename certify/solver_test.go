package certify

import (
	"context"
	"testing"

	"github.com/nnbound/nnbound/sdp"
)

// solverWorks reports whether sdp.Solve solves a tiny SDP (it may still be
// under construction).
func solverWorks() bool {
	p := &sdp.Problem{
		Blocks: []sdp.Block{{Size: 1}},
		C:      []float64{1},
		F:      []sdp.Matrix{{{Block: 0, I: 0, J: 0, V: 1}}, {{Block: 0, I: 0, J: 0, V: 1}}},
	}
	res, err := sdp.Solve(context.Background(), p, nil)
	return err == nil && res.Status == sdp.Optimal
}

// useSolver makes the test solve with sdp.Solve when it works and with
// csdp otherwise (skipping when neither is available).
func useSolver(t *testing.T) {
	t.Helper()
	if !solverWorks() {
		useCSDP(t)
	}
}
