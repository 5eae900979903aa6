package sdp

import "math"

// The checks that decide a status recompute everything from the x and Y
// about to be returned, not from the iterate's own bookkeeping: the slack
// sum F_i x_i - F_0 is rebuilt from x, the dual residual from Y, and
// positive semidefiniteness is tested by Cholesky factorisations of
// shifted matrices (M + delta I factors only if lambda_min(M) > -delta).

// Levels psdLevel reports: the matrix is PSD within delta, within
// nearFactor*delta, or neither.
const nearFactor = 1000

// verifyOptimal returns the largest ratio of a measure of (x, Y) to its
// tolerance: <= 1 means optimal, <= nearFactor near-optimal. The
// semidefiniteness measures count as 0, nearFactor or +Inf.
func (s *solver) verifyOptimal(x []float64, y blockMat) float64 {
	md := s.md
	ft, gt := s.set.FeasTol, s.set.GapTol
	dinf := md.dualResidual(y, s.am)
	gap := relGap(dot(md.c, x), md.f0Dot(y))
	slack := s.next
	md.combine(x, 0, nil, slack)
	md.addF0(-1, slack)
	pl := s.psdLevel(slack, ft*(1+md.normF0))
	yl := s.psdLevel(y, ft*(1+frobNorm(y)))
	return max(dinf/ft, gap/gt, pl, yl)
}

// verifyPrimalCert checks that Y / (F_0 • Y) proves primal infeasibility:
// F_0 • Y > 0, Y PSD and F(Y) small as a backward error.
func (s *solver) verifyPrimalCert() bool {
	md := s.md
	ft := s.set.FeasTol
	dobj := md.f0Dot(s.Y)
	if !(dobj > 0) || md.maxNormF == 0 {
		return false
	}
	md.apply(s.Y, s.am)
	if (norm2(s.am)/md.maxNormF)/(dobj/md.normF0) > ft {
		return false
	}
	return s.psdLevel(s.Y, ft*frobNorm(s.Y)) == 0
}

// verifyDualCert checks that x / (-c^T x) proves dual infeasibility:
// c^T x < 0 and sum F_i x_i PSD up to a backward error.
func (s *solver) verifyDualCert() bool {
	md := s.md
	pobj := dot(md.c, s.x)
	if !(pobj < 0) {
		return false
	}
	slack := s.next
	md.combine(s.x, 0, nil, slack)
	delta := s.set.FeasTol * md.maxNormF * norm2(s.x)
	return s.psdLevel(slack, delta) == 0
}

// psdLevel returns 0 if every block of a is PSD within delta (lambda_min >
// -delta), nearFactor if within nearFactor*delta, and +Inf otherwise.
func (s *solver) psdLevel(a blockMat, delta float64) float64 {
	switch {
	case s.psdWithin(a, delta):
		return 0
	case s.psdWithin(a, nearFactor*delta):
		return nearFactor
	}
	return math.Inf(1)
}

// psdWithin reports whether lambda_min(a) > -delta blockwise. A Cholesky
// factorisation of a + delta I alone does not show that when a's norm is
// far above delta: the factorisation is blind to diagonal scaling, and a
// slack of norm 1e10 with an eigenvalue of -4e-3 (hinf12, once x has run
// off to 1e10) factors. So a Lanczos estimate of lambda_min (exact for
// blocks of order up to lanczosSteps, as it then runs n steps) must not
// fall below -delta either.
func (s *solver) psdWithin(a blockMat, delta float64) bool {
	for k, pb := range s.md.psd {
		n := pb.n
		if s.lz.minEig(n, nil, a.psd[k], lanczosSteps, 1e-8) < -delta {
			return false
		}
		w := s.sm.psd[k]
		copy(w, a.psd[k])
		for i := 0; i < n; i++ {
			w[i*n+i] += delta
		}
		if !cholesky(n, w, n) {
			return false
		}
	}
	for _, v := range a.lp {
		if !(v > -delta) {
			return false
		}
	}
	return true
}

// addF0 adds alpha F_0 to the block matrix a (both triangles).
func (md *model) addF0(alpha float64, a blockMat) {
	for k, pb := range md.psd {
		d, n := a.psd[k], pb.n
		for _, e := range pb.f0 {
			i, j := int(e.i), int(e.j)
			d[i*n+j] += alpha * e.v
			if i != j {
				d[j*n+i] += alpha * e.v
			}
		}
	}
	if lb := md.lp; lb != nil {
		axpy(alpha, lb.f0, a.lp)
	}
}
