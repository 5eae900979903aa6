package sdp

import "math"

// One iteration of the infeasible primal-dual method with the HKM
// direction and Mehrotra's predictor-corrector. With the residuals
//
//	Rp = sum F_i x_i - F_0 - X = theta R0,   rd_i = c_i - F_i • Y,
//
// the Newton equations for (dx, dX, dY) targeting X Y = sigma mu I are
//
//	dX = sum F_j dx_j + Rp
//	F_i • dY = rd_i
//	dY = sym(X^{-1} (Rc - dX Y)),  Rc = sigma mu I - X Y [- dXp dYp]
//
// Eliminating dX and dY leaves B dx = r with the Schur complement
// B_ij = Tr(F_i X^{-1} F_j Y) and
//
//	r_i = sigma mu F_i • X^{-1} - c_i - theta Tr(F_i X^{-1} R0 Y) [- F_i • X^{-1} dXp dYp]
//
// (the terms F_i • Y cancel against rd_i). The predictor has sigma = 0
// and no bracketed term; the corrector reuses the factorisation of B.

// iterate performs one iteration; it reports false on a breakdown.
func (s *solver) iterate() bool {
	md := s.md
	s.invert()
	withR0 := s.theta > 0
	s.sch.assemble(md, s.xinv, s.Y, s.lpD, s.r0lp, withR0)
	if !s.sch.factor() {
		return false
	}
	var bext []float64
	if withR0 {
		bext = s.sch.row()
	}
	mu := s.stats.mu

	// Predictor.
	for i, c := range md.c {
		s.rhs[i] = -c
		if withR0 {
			s.rhs[i] -= s.theta * bext[i]
		}
	}
	s.sch.solve(s.rhs, s.dx)
	s.direction(0, false)
	ap := min(1, s.maxStep(s.LX, s.X.lp, s.dX, predictorSteps))
	ad := min(1, s.maxStep(s.LY, s.Y.lp, s.dY, predictorSteps))
	xy := mu * float64(md.ntot)
	muAff := (xy + ap*frobDot(s.dX, s.Y) + ad*frobDot(s.X, s.dY) + ap*ad*frobDot(s.dX, s.dY)) / float64(md.ntot)
	sigma := 0.0
	if mu > 0 && muAff > 0 {
		expon := max(1, 3*min(ap, ad)*min(ap, ad))
		sigma = min(1, math.Pow(muAff/mu, expon))
	}
	s.secondOrder()

	// Corrector.
	sm := sigma * mu
	md.apply(s.xinv, s.ax)
	md.apply(s.mp, s.am)
	for i, c := range md.c {
		s.rhs[i] = sm*s.ax[i] - c - s.am[i]
		if withR0 {
			s.rhs[i] -= s.theta * bext[i]
		}
	}
	s.sch.solve(s.rhs, s.dx)
	s.direction(sm, true)
	gamma := stepFraction
	ap = min(1, gamma*s.maxStep(s.LX, s.X.lp, s.dX, correctorSteps))
	ad = min(1, gamma*s.maxStep(s.LY, s.Y.lp, s.dY, correctorSteps))
	return s.update(ap, ad)
}

// Step-length parameters: the fraction of the step to the boundary, and
// the Lanczos steps of the estimates.
const (
	stepFraction   = 0.95
	predictorSteps = 12
	correctorSteps = lanczosSteps
)

// invert sets xinv = X^{-1} from the factor of X, and lpD = Y/X.
func (s *solver) invert() {
	for k, pb := range s.md.psd {
		xi := s.xinv.psd[k]
		copy(xi, s.LX.psd[k])
		cholInverse(pb.n, xi, pb.n)
		symmetrizeFromLower(xi, pb.n)
	}
	for k, x := range s.X.lp {
		s.xinv.lp[k] = 1 / x
		s.lpD[k] = s.Y.lp[k] / x
	}
}

// direction computes dX = sum F_i dx_i + theta R0 and
//
//	dY = sm X^{-1} - Y - sym(X^{-1} dX Y) [- sym(mp)]
//
// leaving t = X^{-1} dX for secondOrder.
func (s *solver) direction(sm float64, corrector bool) {
	md := s.md
	md.combine(s.dx, s.theta, s.r0lp, s.dX)
	for k, pb := range md.psd {
		n := pb.n
		xi, y, t, p, dy := s.xinv.psd[k], s.Y.psd[k], s.t.psd[k], s.sm.psd[k], s.dY.psd[k]
		gemm(false, false, n, n, n, 1, xi, n, s.dX.psd[k], n, 0, t, n)
		gemm(false, false, n, n, n, 1, t, n, y, n, 0, p, n)
		mp := s.mp.psd[k]
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := sm*xi[i*n+j] - y[i*n+j] - 0.5*(p[i*n+j]+p[j*n+i])
				if corrector {
					v -= 0.5 * (mp[i*n+j] + mp[j*n+i])
				}
				dy[i*n+j] = v
				dy[j*n+i] = v
			}
		}
	}
	for k, x := range s.X.lp {
		v := sm/x - s.Y.lp[k] - s.dX.lp[k]*s.Y.lp[k]/x
		if corrector {
			v -= s.mp.lp[k]
		}
		s.dY.lp[k] = v
	}
}

// secondOrder sets mp = X^{-1} dXp dYp from the predictor direction.
func (s *solver) secondOrder() {
	for k, pb := range s.md.psd {
		n := pb.n
		gemm(false, false, n, n, n, 1, s.t.psd[k], n, s.dY.psd[k], n, 0, s.mp.psd[k], n)
	}
	for k, x := range s.X.lp {
		s.mp.lp[k] = s.dX.lp[k] * s.dY.lp[k] / x
	}
}

// maxStep returns the largest alpha (possibly +Inf) keeping V + alpha D
// positive semidefinite, for the iterate V with Cholesky factors l (PSD
// blocks) and LP part vlp.
func (s *solver) maxStep(l blockMat, vlp []float64, d blockMat, steps int) float64 {
	a := math.Inf(1)
	for k, pb := range s.md.psd {
		lam := s.lz.minEig(pb.n, l.psd[k], d.psd[k], steps, 1e-3)
		if lam < 0 {
			a = min(a, -1/lam)
		}
	}
	for k, v := range vlp {
		if dk := d.lp[k]; dk < 0 {
			a = min(a, -v/dk)
		}
	}
	return a
}

// update moves to x + ap dx, X + ap dX, Y + ad dY, shortening a step
// whose new iterate fails its Cholesky factorisation.
func (s *solver) update(ap, ad float64) bool {
	var ok bool
	if ap, ok = s.advance(&s.X, s.dX, &s.LX, ap); !ok {
		return false
	}
	if ad, ok = s.advance(&s.Y, s.dY, &s.LY, ad); !ok {
		return false
	}
	axpy(ap, s.dx, s.x)
	s.theta *= 1 - ap
	if ap == 1 {
		s.theta = 0
	}
	s.stats.stepP, s.stats.stepD = ap, ad
	return true
}

// advance sets *v = *v + a d and its factor, halving a until the new
// iterate is positive definite. It returns the step taken.
func (s *solver) advance(v *blockMat, d blockMat, l *blockMat, a float64) (float64, bool) {
	for try := 0; try < 30; try++ {
		ok := true
		for k, pb := range s.md.psd {
			nx := s.next.psd[k]
			copy(nx, v.psd[k])
			axpy(a, d.psd[k], nx)
			copy(l.psd[k], nx)
			if !cholesky(pb.n, l.psd[k], pb.n) {
				ok = false
				break
			}
		}
		for k, x := range v.lp {
			nx := x + a*d.lp[k]
			if !(nx > 0) {
				ok = false
				break
			}
			s.next.lp[k] = nx
		}
		if ok {
			*v, s.next = s.next, *v
			return a, true
		}
		a *= 0.8
	}
	return 0, false
}
