package certify

import (
	"context"
	"testing"

	"github.com/nnbound/nnbound/internal/csdp"
	"github.com/nnbound/nnbound/sdp"
)

// useCSDP makes Bound solve with csdp for the rest of the test (skipping
// when csdp is absent).
func useCSDP(t *testing.T) {
	t.Helper()
	if !csdp.Available() {
		t.Skip("csdp not installed")
	}
	dir := t.TempDir()
	old := solveSDP
	solveSDP = func(ctx context.Context, p *sdp.Problem, _ *sdp.Settings) (*sdp.Result, error) {
		return csdp.Solve(ctx, p, dir)
	}
	t.Cleanup(func() { solveSDP = old })
}
