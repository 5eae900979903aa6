package sdp

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
	if md.m == 0 || s.bestScore == 0 {
		return false
	}
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
	if !s.sch.factor() {
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
	s.bestScore = sc
	s.best.y.copyFrom(proj)
	s.best.st.dobj = md.f0Dot(proj)
	s.best.st.dinf = md.dualResidual(proj, s.ay)
	s.best.st.gap = relGap(s.best.st.pobj, s.best.st.dobj)
	return true
}
