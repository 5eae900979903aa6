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
	s.sch.assemble(md, s.xinv, s.Y, s.LX, &s.LY, s.lpD, s.r0lp, withR0)
	if !s.sch.factor() {
		s.tracef("   schur factor failed\n")
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
	sigma := s.centring(mu, muAff, ap, ad)
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
	s.traceSchur(sigma)
	s.direction(sm, true)
	s.refineDual()
	s.tracef("   pred ap=%.3f ad=%.3f muaff/mu=%.3e\n", ap, ad, muAff/mu)
	gamma := s.stepFraction()
	ap = min(1, gamma*s.maxStep(s.LX, s.X.lp, s.dX, correctorSteps))
	ad = min(1, gamma*s.maxStep(s.LY, s.Y.lp, s.dY, correctorSteps))
	ad = s.limitDualStep(ad)
	s.tracef("   corr ap=%.3f ad=%.3f\n", ap, ad)
	return s.update(ap, ad)
}

// Lanczos steps of the step-length estimates.
const (
	predictorSteps = 12
	correctorSteps = lanczosSteps
)

// centring returns sigma, the fraction of mu the corrector aims at, from
// the predictor's mu (muAff) and steps. While the iterate is infeasible
// sigma = muAff/mu (at most 0.9), so that mu does not run ahead of the
// residuals; once both residuals are within tolerance and the predictor
// steps are long, sigma = (muAff/mu)^(ap+ad), and at most 1/2 (the rule
// of CSDP, Borchers 1999).
func (s *solver) centring(mu, muAff, ap, ad float64) float64 {
	if !(mu > 0) {
		return 0
	}
	g := max(muAff, 0) / mu
	st, ft := &s.stats, s.set.FeasTol
	feasible := st.pinf < ft && st.dinf < ft
	var sigma float64
	if feasible && ap > 0.2 && ad > 0.2 && ap+ad > 1 && g < 1 {
		sigma = math.Pow(g, ap+ad)
	} else {
		sigma = min(g, 0.9)
	}
	if feasible {
		sigma = min(sigma, 0.5)
	}
	return sigma
}

// stepFraction is the fraction of the way to the boundary a step goes:
// from 0.90 after short steps to 0.97 after full ones.
func (s *solver) stepFraction() float64 {
	if s.iter == 0 {
		return 0.9
	}
	return 0.90 + 0.07*min(s.stats.stepP, s.stats.stepD)
}

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
		s.tracef("   advance X failed\n")
		return false
	}
	if ad, ok = s.advance(&s.Y, s.dY, &s.LY, ad); !ok {
		s.tracef("   advance Y failed\n")
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

// refineDual makes the corrector direction satisfy F(dY) = rd more
// accurately. Near the end B is so ill-conditioned that the Cholesky solve
// leaves F(dY) - rd at about eps ||B|| ||dx||, and the error returns as
// dual infeasibility. With e = rd - F(dY) computed from dY itself, the
// correction B delta = -e, dx += delta, dX += F^T delta, and
//
//	dY -= sym(X^{-1} (F^T delta) Y)
//
// is one step of iterative refinement on the full Newton system (as in
// CSDP); it is taken while it helps and only when the error matters.
func (s *solver) refineDual() {
	md := s.md
	e, delta := s.rhs, s.am
	target := 0.1 * s.set.FeasTol * (1 + md.normC)
	prev := math.Inf(1)
	for it := 0; it < 5; it++ {
		md.apply(s.dY, e)
		for i, c := range md.c {
			e[i] = e[i] - (c - s.ay[i])
		}
		ne := norm2(e)
		s.tracef("   refine %d: |e|=%.2e\n", it, ne)
		if ne > prev {
			s.undoCorrection(delta)
			return
		}
		if ne <= target || ne > 0.5*prev {
			return
		}
		prev = ne
		s.sch.solve(e, delta)
		s.correct(delta)
	}
}

// correct adds delta to dx and the matching change to dX and dY, leaving
// F^T delta in s.next and X^{-1} F^T delta Y in s.sm for undoCorrection.
func (s *solver) correct(delta []float64) {
	md := s.md
	axpy(1, delta, s.dx)
	fd := s.next
	md.combine(delta, 0, nil, fd)
	for k, pb := range md.psd {
		n := pb.n
		xi, y, t, p, dy := s.xinv.psd[k], s.Y.psd[k], s.t.psd[k], s.sm.psd[k], s.dY.psd[k]
		axpy(1, fd.psd[k], s.dX.psd[k])
		gemm(false, false, n, n, n, 1, xi, n, fd.psd[k], n, 0, t, n)
		gemm(false, false, n, n, n, 1, t, n, y, n, 0, p, n)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := dy[i*n+j] - 0.5*(p[i*n+j]+p[j*n+i])
				dy[i*n+j] = v
				dy[j*n+i] = v
			}
		}
	}
	for k, x := range s.X.lp {
		s.dX.lp[k] += fd.lp[k]
		s.dY.lp[k] -= fd.lp[k] * s.Y.lp[k] / x
	}
}

// undoCorrection reverts the last correct(delta).
func (s *solver) undoCorrection(delta []float64) {
	axpy(-1, delta, s.dx)
	for k, pb := range s.md.psd {
		n := pb.n
		p, dy := s.sm.psd[k], s.dY.psd[k]
		axpy(-1, s.next.psd[k], s.dX.psd[k])
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := dy[i*n+j] + 0.5*(p[i*n+j]+p[j*n+i])
				dy[i*n+j] = v
				dy[j*n+i] = v
			}
		}
	}
	for k, x := range s.X.lp {
		s.dX.lp[k] -= s.next.lp[k]
		s.dY.lp[k] += s.next.lp[k] * s.Y.lp[k] / x
	}
}

// limitDualStep shortens the dual step while it would raise the dual
// infeasibility above a limit (as CSDP does): in exact arithmetic F(dY) =
// rd and a step of ad scales rd by 1 - ad, but near the end the error in
// F(dY) can outgrow rd. Late in the solve the limit is the smaller of 100
// times the best dual infeasibility so far and the gap; early, 1000 times
// the current one. It never asks for less than FeasTol.
func (s *solver) limitDualStep(ad float64) float64 {
	md, st := s.md, &s.stats
	md.apply(s.dY, s.fdy)
	limit := 1000 * st.dinf
	// Not while a certificate of infeasibility is forming: that needs the
	// residuals to grow.
	if s.iter >= 10 && st.dinf < 0.01 && min(st.pcert, st.dcert) > 100*s.set.FeasTol {
		limit = min(100*s.bestDinf, max(st.gap, s.set.FeasTol))
	}
	limit = max(limit, s.set.FeasTol)
	for try := 0; try < 15; try++ {
		if s.dualResidualAfter(ad) <= limit {
			break
		}
		ad *= 0.8
	}
	return ad
}

// dualResidualAfter returns the relative dual infeasibility of Y + ad dY,
// from F(Y) and F(dY).
func (s *solver) dualResidualAfter(ad float64) float64 {
	rd := 0.0
	for i, c := range s.md.c {
		d := c - s.ay[i] - ad*s.fdy[i]
		rd += d * d
	}
	return math.Sqrt(rd) / (1 + s.md.normC)
}
