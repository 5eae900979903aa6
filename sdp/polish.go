package sdp

import "math"

// Polishing by primal barrier steps. Problems whose dual has no interior
// (F_i • Y = c_i only for singular Y: SDPLIB's hinf, qap, control) stall
// the primal-dual method: Y reaches the boundary while F(Y) - c is still
// far from rounding level, and the gap stops falling. The primal side of
// these problems usually does have an interior, so the solve finishes with
// Newton steps on the primal barrier problem alone,
//
//	minimise  c^T x - mu log det X,   X = sum F_i x_i - F_0,
//
// whose Hessian is mu times the Schur complement with Y replaced by
// X^{-1}. A Newton step dx at x gives the dual estimate
//
//	Y = mu (X^{-1} - X^{-1} dX X^{-1}),  F_i • Y = c_i exactly,
//
// which is PSD whenever the Newton decrement is below 1; then the gap is
// c^T x - F_0 • Y = X • Y. This is the dual-scaling idea of DSDP (Benson,
// Ye and Zhang 2000) used as a last phase.

// polishMaxIter bounds the barrier Newton steps of one polish, which also
// ends after polishStall steps without a better verified pair.
const (
	polishMaxIter  = 150
	polishStall    = 30
	polishShrink   = 0.3
	polishBoundTol = 1e-4 // dual infeasibility of an estimate used as bound
)

// finishPolish polishes until a near-optimal pair is found, unless there
// is one already: from the late
// snapshot with the dual bound (fast when it works), then from the early
// one with and without it (slower: the path is followed from further
// back, as in DSDP).
func (s *solver) finishPolish() {
	if s.bestScore <= nearFactor {
		// Already near-optimal: on SDPLIB and the certificate SDPs the
		// polish never made such an iterate optimal.
		return
	}
	s.polish(s.snap[late], true, 60, 10)
	for _, guided := range []bool{true, false} {
		if s.bestScore <= nearFactor {
			return
		}
		if guided {
			s.polish(s.snap[early], true, 150, 30)
		} else {
			// The last resort gets the longest budget: on hinf13 it
			// improves for 80 steps at a time.
			s.polish(s.snap[early], false, 300, 80)
		}
	}
}

// polish runs at most maxIter barrier Newton steps from a primal
// snapshot, stopping after stall steps without a better verified pair of
// its own. It keeps the best verified pair in s.best and reports whether
// it improved it.
//
// mu falls by polishShrink after each step taken from a nearly centred
// point (Newton decrement below 1/2); in between, damped Newton steps
// recentre. When guided, mu also follows the dual bound as in
// potential-reduction methods: with z the best F_0 • Y of a PSD dual
// estimate whose F(Y) = c holds to bound accuracy, mu <= (c^T x - z) /
// (n + sqrt n), at most 10 times lower per step. That converges in far
// fewer steps, but the dual estimates of the worst problems are not
// accurate enough to be bounds, so an unguided run follows when the
// guided one fails.
func (s *solver) polish(from snapshot, guided bool, maxIter, stall int) bool {
	if from.mu == 0 || s.md.m == 0 {
		return false
	}
	md := s.md
	mu := from.mu
	copy(s.x, from.x)
	md.combine(s.x, 0, nil, s.X)
	md.addF0(-1, s.X)
	if !s.factorIterates() {
		return false
	}
	n := float64(md.ntot)
	rho := n + math.Sqrt(n)
	z := math.Inf(-1)
	improved := false
	lastBest, ownBest := 0, math.Inf(1)
	var step float64
	for it := 0; it < maxIter && it-lastBest <= stall && s.iter < s.set.MaxIter; it++ {
		if s.ctx.Err() != nil || s.timeUp() {
			break
		}
		s.invert()
		for k, x := range s.X.lp {
			s.lpD[k] = 1 / (x * x)
		}
		s.sch.assemble(md, s.xinv, s.xinv, s.LX, nil, s.lpD, s.r0lp, false)
		if !s.sch.factor() {
			break
		}
		// Newton step for c^T x / mu - log det X: B dx = F(X^{-1}) - c/mu.
		md.apply(s.xinv, s.ax)
		for i, c := range md.c {
			s.rhs[i] = s.ax[i] - c/mu
		}
		s.sch.solve(s.rhs, s.dx)
		dec := math.Sqrt(max(0, dot(s.dx, s.rhs)))
		md.combine(s.dx, 0, nil, s.dX)
		s.barrierDual(mu)
		s.iter++
		bs := s.barrierStats(mu)
		bs.stepP, bs.stepD = step, 0
		s.log.line(s.iter, &bs)
		s.tracef("   polish %2d mu=%.2e dec=%.3e\n", it, mu, dec)
		// Only a dual estimate that is PSD to working precision is a
		// bound; but near the end of the hinf problems X is so
		// ill-conditioned that a centred estimate (Newton decrement below
		// 1, PSD in exact arithmetic) misses by rounding, and the check,
		// which allows for that, decides whether it is a solution.
		if guided && bs.dinf <= polishBoundTol && bs.dobj <= bs.pobj && s.psdWithin(s.dY, 0) {
			z = max(z, bs.dobj)
		}
		if sc := s.verifyOptimal(s.x, s.dY); !math.IsInf(sc, 1) {
			if sc < ownBest {
				ownBest, lastBest = sc, it
			}
			if sc < s.bestScore {
				s.bestScore = sc
				copy(s.best.x, s.x)
				s.best.y.copyFrom(s.dY)
				s.best.st = bs
				improved = true
			}
			if sc <= 1 {
				break
			}
		}
		var ok bool
		if step, ok = s.barrierStep(mu); !ok {
			break
		}
		next := mu
		if dec < 0.5 {
			next = mu * polishShrink
		}
		pobj := dot(md.c, s.x)
		if pobj < z {
			// The bound was not one: its dual estimate was too inexact.
			z = math.Inf(-1)
		}
		if b := (pobj - z) / rho; b > 0 {
			next = max(min(next, b), mu/10)
		}
		if next > 0 {
			mu = next
		}
	}
	return improved
}

// barrierStep moves x along dx as far as 0.95 of the way to the boundary
// (at most 1), halving the step while it does not lower the barrier
// function c^T x / mu - log det X. It returns the step, or false if no
// step helps.
func (s *solver) barrierStep(mu float64) (float64, bool) {
	md := s.md
	f0 := dot(md.c, s.x)/mu - s.logDet()
	a := min(1, 0.95*s.maxStep(s.LX, s.X.lp, s.dX, correctorSteps))
	for try := 0; try < 12; try++ {
		saveX, saveL := s.X, s.LX
		got, ok := s.advance(&s.X, s.dX, &s.LX, a)
		if !ok {
			return 0, false
		}
		f := (dot(md.c, s.x)+got*dot(md.c, s.dx))/mu - s.logDet()
		if f <= f0 {
			axpy(got, s.dx, s.x)
			return got, true
		}
		// Undo: advance swapped X with s.next and refactored LX.
		s.next, s.X = s.X, saveX
		s.LX = saveL
		s.refactorX()
		a = got / 2
	}
	return 0, false
}

// logDet returns log det X from the factor of X.
func (s *solver) logDet() float64 {
	v := 0.0
	for k, pb := range s.md.psd {
		l := s.LX.psd[k]
		for i := 0; i < pb.n; i++ {
			v += 2 * math.Log(l[i*pb.n+i])
		}
	}
	for _, x := range s.X.lp {
		v += math.Log(x)
	}
	return v
}

// refactorX recomputes the Cholesky factor of X.
func (s *solver) refactorX() {
	for k, pb := range s.md.psd {
		copy(s.LX.psd[k], s.X.psd[k])
		cholesky(pb.n, s.LX.psd[k], pb.n)
	}
}

// barrierDual sets dY = mu (X^{-1} - X^{-1} dX X^{-1}), the dual estimate
// of the barrier Newton step (symmetrised).
func (s *solver) barrierDual(mu float64) {
	for k, pb := range s.md.psd {
		n := pb.n
		xi, t, p, y := s.xinv.psd[k], s.t.psd[k], s.sm.psd[k], s.dY.psd[k]
		gemm(false, false, n, n, n, 1, xi, n, s.dX.psd[k], n, 0, t, n)
		gemm(false, false, n, n, n, 1, t, n, xi, n, 0, p, n)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := mu * (xi[i*n+j] - 0.5*(p[i*n+j]+p[j*n+i]))
				y[i*n+j] = v
				y[j*n+i] = v
			}
		}
	}
	for k, x := range s.X.lp {
		s.dY.lp[k] = mu * (1/x - s.dX.lp[k]/(x*x))
	}
}

// barrierStats measures the pair (x, dY) of a barrier step.
func (s *solver) barrierStats(mu float64) stats {
	md := s.md
	st := stats{pobj: dot(md.c, s.x), dobj: md.f0Dot(s.dY), mu: mu}
	st.gap = relGap(st.pobj, st.dobj)
	st.dinf = md.dualResidual(s.dY, s.am)
	return st
}
