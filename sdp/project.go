package sdp

import "math"

// Dual projection. When the solve ends short of optimal only because
// F(Y) = c misses by a little, the best Y is projected onto that affine
// space in the trace inner product,
//
//	Y' = Y + sum_i z_i F_i,   G z = c - F(Y),   G_ij = F_i • F_j,
//
// and Y' replaces Y if the independent check rates the pair better. The
// Gram matrix G is the Schur complement with X^{-1} = Y = I, so the
// Schur machinery (and its workspace) computes and factors it; this runs
// once, after the iterations. Y' may lose a little of Y's
// semidefiniteness, which the check measures.

// projectDual tries the projection on the best iterate; it reports
// whether it improved the best score.
func (s *solver) projectDual() bool {
	md := s.md
	if md.m == 0 || s.bestScore == 0 || !s.factorGram() {
		return false
	}
	y := s.best.y
	md.apply(y, s.ay)
	for i, c := range md.c {
		s.rhs[i] = c - s.ay[i]
	}
	s.sch.solve(s.rhs, s.dx)
	proj := s.dY // not s.next: verifyOptimal uses that
	md.combine(s.dx, 0, nil, proj)
	for k := range proj.psd {
		axpy(1, y.psd[k], proj.psd[k])
	}
	axpy(1, y.lp, proj.lp)
	sc := s.verifyOptimal(s.best.x, proj)
	s.tracef("   projection: score %.3e -> %.3e\n", s.bestScore, sc)
	if sc >= s.bestScore {
		return false
	}
	s.takeProjection(proj, sc)
	return true
}

// factorGram assembles and factors the Gram matrix G_ij = F_i • F_j in
// the Schur workspace; it reports false if G is singular.
func (s *solver) factorGram() bool {
	md := s.md
	// Identity in the scratch matrices (the iterations are over).
	id := s.xinv
	for k, pb := range md.psd {
		d := id.psd[k]
		clear(d)
		for i := 0; i < pb.n; i++ {
			d[i*pb.n+i] = 1
		}
	}
	for k := range id.lp {
		id.lp[k] = 1
		s.lpD[k] = 1
	}
	s.sch.assemble(md, id, id, id, &id, s.lpD, s.r0lp, false)
	return s.sch.factor()
}

// takeProjection makes proj the best Y, with score sc.
func (s *solver) takeProjection(proj blockMat, sc float64) {
	md := s.md
	s.bestScore = sc
	s.best.y.copyFrom(proj)
	s.best.st.dobj = md.f0Dot(proj)
	s.best.st.dinf = md.dualResidual(proj, s.ay)
	s.best.st.gap = relGap(s.best.st.pobj, s.best.st.dobj)
}

// projectGap is the last resort of a solve whose best pair is not even
// near-optimal. On ill-posed problems with a large x (hinf15: |x| ~ 1e7)
// the gap c^T x - F_0 • Y = X • Y + x^T (c - F(Y)) is dominated by a dual
// residual at rounding level, so projecting onto F(Y) = c alone cannot
// close it. projectGap projects Y onto F(Y) = c and F_0 • Y = c^T x
// together,
//
//	Y' = Y + sum_i z_i F_i + z_0 F_0,
//	[G g; g^T F_0 • F_0] [z; z_0] = [c - F(Y); c^T x - F_0 • Y],
//	g_i = F_i • F_0,
//
// solved with the factor of G by eliminating z_0. Then X • Y' = 0 and the
// gap is zero by construction, so it says nothing: the pair is kept only
// if the check finds X and Y' semidefinite within its near-optimal
// tolerances (which bound how far weak duality can fail), and it is
// reported NearOptimal at best, never Optimal.
func (s *solver) projectGap() bool {
	md := s.md
	if md.m == 0 || math.IsInf(s.bestScore, 1) || !s.factorGram() {
		return false
	}
	f0 := s.xinv // free again once G is factored
	for _, d := range f0.psd {
		clear(d)
	}
	clear(f0.lp)
	md.addF0(1, f0)
	g, w := s.ax, s.fdy
	md.apply(f0, g)
	g00 := md.f0Dot(f0)
	y, x := s.best.y, s.best.x
	md.apply(y, s.ay)
	for i, c := range md.c {
		s.rhs[i] = c - s.ay[i]
	}
	r0 := dot(md.c, x) - md.f0Dot(y)
	s.sch.solve(s.rhs, s.dx)
	s.sch.solve(g, w)
	schur0 := g00 - dot(g, w)
	if !(schur0 > 1e-12*g00) {
		return false // F_0 lies in the span of the F_i
	}
	z0 := (r0 - dot(g, s.dx)) / schur0
	axpy(-z0, w, s.dx)
	proj := s.dY
	md.combine(s.dx, 0, nil, proj)
	md.addF0(z0, proj)
	for k := range proj.psd {
		axpy(1, y.psd[k], proj.psd[k])
	}
	axpy(1, y.lp, proj.lp)
	sc := max(s.verifyOptimal(x, proj), 1+1e-9)
	s.tracef("   gap projection: score %.3e -> %.3e\n", s.bestScore, sc)
	if sc >= s.bestScore || sc > nearFactor {
		return false
	}
	s.takeProjection(proj, sc)
	s.gapClosed = true
	return true
}
