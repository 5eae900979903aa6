package certify

import (
	"context"
	"os"
	"testing"

	"github.com/nnbound/nnbound/internal/csdp"
	"github.com/nnbound/nnbound/sdp"
)

// csdpSolve returns an Options.Solve that solves with csdp in a temporary
// directory of the test (skipping the test when csdp is absent).
func csdpSolve(t *testing.T) func(context.Context, *sdp.Problem, *sdp.Settings) (*sdp.Result, error) {
	t.Helper()
	if !csdp.Available() {
		t.Skip("csdp not installed")
	}
	dir := t.TempDir()
	return func(ctx context.Context, p *sdp.Problem, _ *sdp.Settings) (*sdp.Result, error) {
		return csdp.Solve(ctx, p, dir)
	}
}

// testSolver returns the Options.Solve of the tests: csdp when it is
// installed (a reference for testing the certificate's own code), nil
// (sdp.Solve) otherwise or when NNBOUND_SOLVER=nnbound
// (TestPaperMatchesCSDP tests sdp.Solve itself).
func testSolver(t *testing.T) func(context.Context, *sdp.Problem, *sdp.Settings) (*sdp.Result, error) {
	t.Helper()
	if csdp.Available() && os.Getenv("NNBOUND_SOLVER") != "nnbound" {
		return csdpSolve(t)
	}
	return nil
}
