package certify

import (
	"context"
	"os"
	"testing"

	"github.com/nnbound/nnbound/internal/csdp"
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

// useSolver makes the test solve with csdp when it is installed (a
// reference for testing the certificate's own code) and with sdp.Solve
// otherwise, or always with sdp.Solve when NNBOUND_SOLVER=nnbound
// (TestPaperMatchesCSDP tests sdp.Solve itself).
func useSolver(t *testing.T) {
	t.Helper()
	if csdp.Available() && os.Getenv("NNBOUND_SOLVER") != "nnbound" {
		useCSDP(t)
		return
	}
	if !solverWorks() {
		t.Skip("neither csdp nor nnbound's SDP solver is available")
	}
}
