package certify

import (
	"context"
	"fmt"
	"io"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/sdp/sdpa"
	"github.com/nnbound/nnbound/spec"
)

// Problem returns the SDP that Bound solves first (the root SDP over the
// whole input set, before any splitting), in SDPA form:
//
//	minimise  w . (gamma, gamma_x1, gamma_x2, gamma_x)
//	subject to  sum_i F_i x_i - F_0 >= 0,
//
// with the gammas first among the variables (those that multiply a zero
// matrix are left out, e.g. gamma_x when x2 = x1), then one multiplier per
// quadratic constraint (except those whose matrix is zero on the input set).
// Block 1 is the LMI, without the coordinates of neurons that are zero on
// the input set (dead, or quantised or pruned to zero), block 2 the
// diagonal block of the sign constraints. Constraint matrices are given as rank-one
// sdp.Factors; writers of other formats expand them.
func Problem(f1, f2 *nn.Network, box spec.Box, opts Options) (*sdp.Problem, error) {
	if err := checkInput(f1, f2, box, &opts); err != nil {
		return nil, err
	}
	r := rootRegion(box, &opts)
	rb, err := boundsOf(f1, f2, &r, &opts)
	if err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	m, err := buildLMI(f1, f2, &r, rb, &opts)
	if err != nil {
		return nil, err
	}
	return m.problem(weights(&r, &opts), rb.expected(&opts)).Problem, nil
}

// ExportFormat is a file format for Export.
type ExportFormat int

// The export formats.
const (
	// SDPA is the sparse SDPA format (.dat-s), read by CSDP, SDPA, DSDP and
	// nnbound solve.
	SDPA ExportFormat = iota
)

// Export writes the root SDP of Bound (see Problem) to w in format.
func Export(w io.Writer, f1, f2 *nn.Network, box spec.Box, opts Options, format ExportFormat) error {
	p, err := Problem(f1, f2, box, opts)
	if err != nil {
		return err
	}
	switch format {
	case SDPA:
		return sdpa.Write(w, p)
	}
	return fmt.Errorf("certify: unknown export format %d: %w", int(format), ErrOptions)
}

// solveRoot solves the root SDP of Bound with the configured solver and
// returns its result (for comparisons of solvers on the same problem).
func solveRoot(ctx context.Context, p *sdp.Problem, o *Options) (*sdp.Result, error) {
	s := o.Solver
	return solveSDP(ctx, p, &s)
}
