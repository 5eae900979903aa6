package certify

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/qc"
)

// The check (independent of the solver). Given the solver's gammas and
// multipliers, project them onto their sign constraints and rebuild
//
//	M = sum_o d_o d_o^T - sum_g gamma_g G_g + sum_k lambda_k M_k
//
// from the layout's forms in float64 with an entrywise error radius
// (qc.Matrix). For every feasible eta, eta^T M eta >= ||f1 - f2||^2 -
// (gamma + ...) because every term is non-negative (or zero) there. Scale
// by S = diag(s), s_c a power of two >= max |eta_c| (exact), and bound
// t >= lambda_max(S M S) rigorously:
//
//   - ||E||_2 <= max row sum of S R S for the assembly error E;
//   - choose t above the computed largest eigenvalue and run a float64
//     Cholesky of B = fl(t I - S M S); if it succeeds, B + dB = L L^T with
//     |dB| <= gamma_{n+1} |L| |L|^T (Demmel), so
//     lambda_min(B) >= -gamma_{n+1} ||L||_F^2;
//   - B differs from t I - S M S by the rounding of its diagonal, at most
//     u |B_ii|.
//
// Then eta^T M eta <= t_+ ||S^{-1} eta||^2 <= t_+ sum_c (r_c / s_c)^2 with
// t_+ = max(t, 0), which is added to gamma (the margin). Every step rounds
// upwards.

// checked is a verified solution.
type checked struct {
	gammas Gammas // projected, with the margin added to Gamma
	margin float64
}

// check verifies x (the solver's variables) for block 0 of the LMI.
func (m *lmi) check(sp *sdpProblem, x []float64) (*checked, error) {
	return m.checkBlock(sp, x, 0)
}

// checkBlock verifies x for block j of the LMI: its objective forms and
// gammas with the shared multipliers.
func (m *lmi) checkBlock(sp *sdpProblem, x []float64, j int) (*checked, error) {
	n := m.layout.Dim
	var g [4]float64
	for k, v := range sp.gammaVar[j] {
		if v >= 0 {
			g[k] = max(0, x[v]*sp.objScale) // exact: a power of two
		}
	}
	M := qc.NewMatrix(n)
	for _, d := range sp.objs[j] {
		M.AddSquare(1, d)
	}
	for k, forms := range m.groups {
		if g[k] == 0 {
			continue
		}
		for _, f := range forms {
			M.AddSquare(-g[k], f)
		}
	}
	for k, t := range m.terms {
		if sp.termVar[k] < 0 {
			continue
		}
		lam := x[sp.termVar[k]] * sp.termScale[k] * sp.objScale // exact: powers of two
		if t.Sign == qc.NonNeg {
			lam = max(0, lam)
		}
		if math.IsNaN(lam) || math.IsInf(lam, 0) {
			return nil, fmt.Errorf("multiplier of %v %s is %v", t.Kind, t.Where, lam)
		}
		M.AddTerm(lam, t)
	}
	s := m.scales()
	ratio := 0.0 // sum_c (r_c / s_c)^2, rounded up
	for c, r := range m.radius {
		q := r / s[c] // exact: s is a power of two
		ratio = outward.AddUpStep(ratio, outward.MulUpStep(q, q))
	}
	t, err := maxEigUpper(M, s)
	if err != nil {
		return nil, err
	}
	margin := 0.0
	if t > 0 {
		margin = outward.MulUpStep(t, ratio)
	}
	g[0] = outward.AddUpStep(g[0], margin)
	return &checked{gammas: gammasOf(g), margin: margin}, nil
}

// pow2Above returns the smallest power of two >= r, at least 2^-500.
func pow2Above(r float64) float64 {
	if !(r > 0x1p-500) {
		return 0x1p-500
	}
	fr, e := math.Frexp(r)
	if fr == 0.5 {
		return r
	}
	return math.Ldexp(1, e)
}

// maxEigUpper returns t >= lambda_max(S M S) for the exact matrix within
// M.R of M.V, S = diag(s) with powers of two s.
func maxEigUpper(M *qc.Matrix, s []float64) (float64, error) {
	n := M.N
	a := mat.NewSymDense(n, nil)
	rowR := 0.0 // max row sum of S R S (>= ||E||_2 of the scaled error)
	scale := 0.0
	for i := range n {
		sum := 0.0
		for j := range n {
			v := M.V[i*n+j] * s[i] * s[j] // exact scaling by powers of two
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("LMI entry (%d,%d) is %v", i, j, v)
			}
			if j >= i {
				a.SetSym(i, j, v)
			}
			scale = max(scale, math.Abs(v))
			sum = outward.AddUpStep(sum, M.R[i*n+j]*s[i]*s[j])
		}
		rowR = max(rowR, sum)
	}
	est := eigEstimate(a, scale)
	gam := float64(n+1) * outward.Unit / (1 - float64(n+1)*outward.Unit)
	step := max(1e-13*scale, 1e-300)
	for range 40 {
		t := est + step
		if lminLower, ok := choleskyShift(a, t, gam); ok {
			// lambda_max(A_computed) <= t - lminLower; add the assembly error.
			return outward.AddUpStep(outward.AddUpStep(t, lminLower), rowR), nil
		}
		step *= 4
	}
	return 0, fmt.Errorf("cannot bound the largest eigenvalue of the LMI (estimate %v)", est)
}

// choleskyShift runs a float64 Cholesky of B = fl(t I - A). On success it
// returns d >= -lambda_min(t I - A) (rounded up): gamma_{n+1} ||L||_F^2
// plus the rounding of B's diagonal.
func choleskyShift(a *mat.SymDense, t, gam float64) (float64, bool) {
	n := a.SymmetricDim()
	l := make([]float64, n*n)
	diagErr := 0.0
	for i := range n {
		for j := 0; j <= i; j++ {
			v := -a.At(i, j)
			if i == j {
				v = t - a.At(i, i)
				diagErr = max(diagErr, outward.Unit*math.Abs(v))
			}
			l[i*n+j] = v
		}
	}
	for j := range n {
		d := l[j*n+j]
		for k := range j {
			d -= l[j*n+k] * l[j*n+k]
		}
		if !(d > 0) {
			return 0, false
		}
		d = math.Sqrt(d)
		l[j*n+j] = d
		for i := j + 1; i < n; i++ {
			v := l[i*n+j]
			for k := range j {
				v -= l[i*n+k] * l[j*n+k]
			}
			l[i*n+j] = v / d
		}
	}
	frob := 0.0
	for i := range n {
		for j := 0; j <= i; j++ {
			frob = outward.AddUpStep(frob, outward.MulUpStep(math.Abs(l[i*n+j]), math.Abs(l[i*n+j])))
		}
	}
	// Underflow in the factorisation adds at most n (n+1) 2^-1074 per entry.
	under := float64(n*(n+1)) * 0x1p-1022
	return outward.AddUpStep(outward.AddUpStep(outward.MulUpStep(gam*(1+4*outward.Unit), frob), diagErr), under), true
}

// eigEstimate returns an estimate of the largest eigenvalue of a (whose
// largest entry has magnitude scale): from a LAPACK eigensolver on a copy
// scaled by a power of two to unit size, or the Gershgorin bound if that
// fails. Only the rigorous step after it decides anything.
func eigEstimate(a *mat.SymDense, scale float64) (est float64) {
	n := a.SymmetricDim()
	gersh := func() float64 {
		g := math.Inf(-1)
		for i := range n {
			r := a.At(i, i)
			for j := range n {
				if j != i {
					r += math.Abs(a.At(i, j))
				}
			}
			g = max(g, r)
		}
		return g
	}
	if scale == 0 {
		return 0
	}
	_, e := math.Frexp(scale)
	b := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			b.SetSym(i, j, math.Ldexp(a.At(i, j), -e))
		}
	}
	defer func() {
		// gonum's Dsyev can panic on some inputs; the estimate is only a
		// starting point.
		if recover() != nil {
			est = gersh()
		}
	}()
	var eig mat.EigenSym
	if !eig.Factorize(b, false) {
		return gersh()
	}
	vals := eig.Values(nil)
	return math.Ldexp(vals[len(vals)-1], e)
}
