// Package sdptest holds what tests of package sdp and of its callers need
// to distrust the solver: Verify, which recomputes residuals, minimum
// eigenvalues and the gap from a returned solution alone, and small
// problems with known optima, infeasible ones and malformed ones, one per
// file with their mathematics.
//
// Nothing here shares code with the solver: matrices are expanded densely
// with gonum's mat package and eigenvalues come from mat.EigenSym, so a
// bug in the solver's sparse kernels cannot hide itself.
package sdptest

import (
	"errors"
	"fmt"
	"math"

	"github.com/nnbound/nnbound/sdp"
)

// ErrCheck is wrapped by every error Verify returns about a solution.
var ErrCheck = errors.New("solution check failed")

// Measures are the quantities Verify recomputes. Relative measures are
// dimensionless; each is compared against the tolerance.
type Measures struct {
	PrimalObjective float64 // c^T x
	DualObjective   float64 // F_0 • Y
	// PrimalInfeasibility is max(0, -lambda_min(sum F_i x_i - F_0)) /
	// (1 + ||F_0||_F).
	PrimalInfeasibility float64
	// DualInfeasibility is the larger of ||F(Y) - c||_2 / (1 + ||c||_2) and
	// max(0, -lambda_min(Y)) / (1 + ||Y||_F).
	DualInfeasibility float64
	// Gap is |c^T x - F_0 • Y| / max(1, (|c^T x| + |F_0 • Y|)/2).
	Gap float64
	// MinEigX and MinEigY are the smallest eigenvalues of sum F_i x_i - F_0
	// and of Y over all blocks.
	MinEigX, MinEigY float64
}

// Measure recomputes the measures of (r.X, r.Y) for p. It returns an
// error if the shapes of X and Y do not match p.
func Measure(p *sdp.Problem, r *sdp.Result) (Measures, error) {
	var ms Measures
	if err := checkShapes(p, r); err != nil {
		return ms, err
	}
	slack := combine(p, r.X, true)
	y, asym := ymat(p, r.Y)
	ms.PrimalObjective = dotVec(p.C, r.X)
	ms.DualObjective = inner(p, 0, y)
	ms.MinEigX = minEig(slack)
	ms.MinEigY = minEig(y)
	ms.PrimalInfeasibility = max(0, -ms.MinEigX) / (1 + normF(p, 0))
	res := 0.0
	for i, c := range p.C {
		v := inner(p, i+1, y) - c
		res += v * v
	}
	ms.DualInfeasibility = max(math.Sqrt(res)/(1+norm(p.C)),
		max(0, -ms.MinEigY, asym)/(1+frob(y)))
	ms.Gap = math.Abs(ms.PrimalObjective-ms.DualObjective) /
		max(1, (math.Abs(ms.PrimalObjective)+math.Abs(ms.DualObjective))/2)
	return ms, nil
}

// Verify checks r against p without trusting the solver's report:
//
//   - Optimal: primal and dual infeasibility and gap at most tol, and the
//     reported objectives equal to c^T x and F_0 • Y;
//   - NearOptimal: the same within 1000 tol;
//   - PrimalInfeasible: Y is a certificate: Y PSD (lambda_min >= -tol
//     ||Y||_F), F_0 • Y > 0, and ||F(Y)|| / max_i ||F_i||_F <= tol
//     (F_0 • Y) / ||F_0||_F;
//   - DualInfeasible: X is a certificate: c^T x < 0 and, for x scaled to
//     c^T x = -1, lambda_min(sum F_i x_i) >= -tol max_i ||F_i||_F ||x||_2.
//
// Any other status is an error: there is nothing to verify.
func Verify(p *sdp.Problem, r *sdp.Result, tol float64) error {
	if r == nil {
		return fmt.Errorf("sdptest: nil result: %w", ErrCheck)
	}
	switch r.Status {
	case sdp.Optimal:
		return verifyOptimal(p, r, tol)
	case sdp.NearOptimal:
		return verifyOptimal(p, r, 1000*tol)
	case sdp.PrimalInfeasible:
		return verifyPrimalCert(p, r, tol)
	case sdp.DualInfeasible:
		return verifyDualCert(p, r, tol)
	}
	return fmt.Errorf("sdptest: status %s carries no solution to verify: %w", r.Status, ErrCheck)
}

func verifyOptimal(p *sdp.Problem, r *sdp.Result, tol float64) error {
	ms, err := Measure(p, r)
	if err != nil {
		return err
	}
	switch {
	case !(ms.PrimalInfeasibility <= tol):
		return fmt.Errorf("sdptest: %s: primal infeasibility %.3g > %.3g (lambda_min(X) = %.3g): %w",
			r.Status, ms.PrimalInfeasibility, tol, ms.MinEigX, ErrCheck)
	case !(ms.DualInfeasibility <= tol):
		return fmt.Errorf("sdptest: %s: dual infeasibility %.3g > %.3g (lambda_min(Y) = %.3g): %w",
			r.Status, ms.DualInfeasibility, tol, ms.MinEigY, ErrCheck)
	case !(ms.Gap <= tol):
		return fmt.Errorf("sdptest: %s: gap %.3g > %.3g (c^T x = %.10g, F_0 • Y = %.10g): %w",
			r.Status, ms.Gap, tol, ms.PrimalObjective, ms.DualObjective, ErrCheck)
	}
	return checkObjectives(r, ms)
}

// checkObjectives compares the reported objectives with the recomputed.
func checkObjectives(r *sdp.Result, ms Measures) error {
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"PrimalObjective", r.PrimalObjective, ms.PrimalObjective},
		{"DualObjective", r.DualObjective, ms.DualObjective},
	} {
		if math.Abs(c.got-c.want) > 1e-9*max(1, math.Abs(c.want)) {
			return fmt.Errorf("sdptest: reported %s %.12g, recomputed %.12g: %w",
				c.name, c.got, c.want, ErrCheck)
		}
	}
	return nil
}

func verifyPrimalCert(p *sdp.Problem, r *sdp.Result, tol float64) error {
	if err := checkShapes(p, r); err != nil {
		return err
	}
	y, _ := ymat(p, r.Y)
	dobj := inner(p, 0, y)
	if !(dobj > 0) {
		return fmt.Errorf("sdptest: primal infeasibility certificate has F_0 • Y = %.3g, want > 0: %w", dobj, ErrCheck)
	}
	if e := minEig(y); e < -tol*frob(y) {
		return fmt.Errorf("sdptest: primal infeasibility certificate has lambda_min(Y) = %.3g: %w", e, ErrCheck)
	}
	res := make([]float64, len(p.C))
	for i := range p.C {
		res[i] = inner(p, i+1, y)
	}
	ratio := (norm(res) / maxNormF(p)) / (dobj / normF(p, 0))
	if !(ratio <= tol) {
		return fmt.Errorf("sdptest: primal infeasibility certificate has ||F(Y)|| ratio %.3g > %.3g: %w", ratio, tol, ErrCheck)
	}
	return nil
}

func verifyDualCert(p *sdp.Problem, r *sdp.Result, tol float64) error {
	if err := checkShapes(p, r); err != nil {
		return err
	}
	pobj := dotVec(p.C, r.X)
	if !(pobj < 0) {
		return fmt.Errorf("sdptest: dual infeasibility certificate has c^T x = %.3g, want < 0: %w", pobj, ErrCheck)
	}
	x := make([]float64, len(r.X))
	for i, v := range r.X {
		x[i] = v / -pobj
	}
	ax := combine(p, x, false)
	if e := minEig(ax); e < -tol*maxNormF(p)*norm(x) {
		return fmt.Errorf("sdptest: dual infeasibility certificate has lambda_min(sum F_i x_i) = %.3g: %w", e, ErrCheck)
	}
	return nil
}

// checkShapes checks that r.X and r.Y have the lengths p implies.
func checkShapes(p *sdp.Problem, r *sdp.Result) error {
	if len(r.X) != len(p.C) {
		return fmt.Errorf("sdptest: len(X) = %d, want %d: %w", len(r.X), len(p.C), sdp.ErrDimension)
	}
	if len(r.Y) != len(p.Blocks) {
		return fmt.Errorf("sdptest: Y has %d blocks, want %d: %w", len(r.Y), len(p.Blocks), sdp.ErrDimension)
	}
	for b, blk := range p.Blocks {
		want := blk.Size * blk.Size
		if blk.Diagonal {
			want = blk.Size
		}
		if len(r.Y[b]) != want {
			return fmt.Errorf("sdptest: Y block %d has %d values, want %d: %w", b+1, len(r.Y[b]), want, sdp.ErrDimension)
		}
	}
	return nil
}
