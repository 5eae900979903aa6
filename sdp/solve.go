package sdp

import (
	"context"
	"errors"
	"time"
)

// Result is what a solve returns.
type Result struct {
	Status Status
	// X is the primal variable x (length m).
	X []float64
	// Y is the dual matrix, one slice per block: n*n row-major for a PSD
	// block, n values for a diagonal block.
	Y [][]float64
	// PrimalObjective is c^T x; DualObjective is F_0 • Y.
	PrimalObjective, DualObjective float64
	// PrimalInfeasibility, DualInfeasibility and RelGap are the final
	// relative residuals and gap as the solver measured them.
	PrimalInfeasibility, DualInfeasibility, RelGap float64
	Iterations                                     int
	Time                                           time.Duration
}

// Solve solves p with the given settings (nil means DefaultSettings). The
// error is non-nil only for an ill-formed problem or invalid settings; how
// the solve ended is Result.Status.
func Solve(ctx context.Context, p *Problem, s *Settings) (*Result, error) {
	return nil, errors.New("sdp: not implemented yet")
}
