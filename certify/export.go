package certify

import (
	"context"
	"fmt"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/sdp"
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
//
// GammaNames names the leading variables, in order, as the builder laid
// them out: "gamma", "gamma_x1", "gamma_x2", "gamma_x" less those left
// out.
func Problem(f1, f2 *nn.Network, in spec.Inputs, q spec.Quantity, o Options) (*RootProblem, error) {
	opts := task{Options: o, in: in, q: q, timing: &Timing{}}
	if err := checkInput(f1, f2, &opts); err != nil {
		return nil, err
	}
	r := rootRegion(in.Box, &opts)
	rb, err := boundsOf(context.Background(), f1, f2, &r, &opts)
	if err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	m, err := buildLMI(f1, f2, &r, rb, &opts, false)
	if err != nil {
		return nil, err
	}
	sp := m.problem(weights(&r, &opts), rb.expected(&opts))
	return &RootProblem{Problem: sp.Problem, GammaNames: sp.gammaNames()}, nil
}

// RootProblem is the root SDP of Bound (see Problem) and the names of its
// gamma variables.
type RootProblem struct {
	*sdp.Problem
	// GammaNames[i] names variable i (0-based) for i < len(GammaNames):
	// the gammas come first, in the order gamma, gamma_x1, gamma_x2,
	// gamma_x, without those that multiply a zero matrix.
	GammaNames []string
}

// gammaVarNames are the names of the four gammas, in Gammas order.
var gammaVarNames = [4]string{"gamma", "gamma_x1", "gamma_x2", "gamma_x"}

// gammaNames returns the names of the gamma variables of a one-block SDP
// by variable index (the gammas are its first variables).
func (sp *sdpProblem) gammaNames() []string {
	var names []string
	for g, v := range sp.gammaVar[0] {
		if v >= 0 {
			if v != len(names) {
				panic("certify: the gammas are not the leading variables of the SDP")
			}
			names = append(names, gammaVarNames[g])
		}
	}
	return names
}
