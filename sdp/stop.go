package sdp

import (
	"math"
	"time"
)

// stats are the measures of one iterate, as the solver sees them.
type stats struct {
	pobj, dobj float64 // c^T x and F_0 • Y
	gap        float64 // |pobj - dobj| / max(1, (|pobj| + |dobj|)/2)
	pinf       float64 // ||sum F_i x_i - F_0 - X||_F / (1 + ||F_0||_F)
	dinf       float64 // ||c - F(Y)||_2 / (1 + ||c||_2)
	mu         float64 // X • Y / n
	// Quality of the infeasibility certificates the iterate suggests
	// (backward errors, +Inf when there is none): Y / (F_0 • Y) for
	// primal infeasibility, x / (-c^T x) for dual infeasibility.
	pcert, dcert float64
	stepP, stepD float64 // steps that produced this iterate
}

// relGap is the relative duality gap of Settings.GapTol.
func relGap(pobj, dobj float64) float64 {
	return math.Abs(pobj-dobj) / max(1, (math.Abs(pobj)+math.Abs(dobj))/2)
}

// measure fills s.stats for the current iterate.
func (s *solver) measure() {
	md, st := s.md, &s.stats
	st.pobj = dot(md.c, s.x)
	st.dobj = md.f0Dot(s.Y)
	st.dinf = md.dualResidual(s.Y, s.ay)
	st.pinf = s.residualNorm(s.theta) / (1 + md.normF0)
	st.gap = relGap(st.pobj, st.dobj)
	st.mu = frobDot(s.X, s.Y) / float64(md.ntot)
	st.pcert, st.dcert = math.Inf(1), math.Inf(1)
	if md.maxNormF > 0 {
		if st.dobj > 0 {
			st.pcert = (norm2(s.ay) / md.maxNormF) / (st.dobj / md.normF0)
		}
		if st.pobj < 0 {
			st.dcert = (s.certNorm() / md.maxNormF) / (-st.pobj / md.normC)
		}
	}
}

// score is the largest ratio of a measure to its tolerance: <= 1 means
// optimal by the solver's own measures.
func (s *solver) score(st *stats) float64 {
	ft, gt := s.set.FeasTol, s.set.GapTol
	return max(st.pinf/ft, st.dinf/ft, st.gap/gt)
}

// stallLimit is how many iterations without a halving of the best
// primal or dual infeasibility, gap or certificate measure end the solve.
const stallLimit = 20

// nearStallLimit replaces stallLimit once the best iterate is near-optimal
// by its own measures: what is left to gain is the last digits, and an
// iterate that has stopped improving there has met the boundary.
const nearStallLimit = 10

// stop decides whether the solve ends at the current iterate.
func (s *solver) stop() (Status, bool) {
	st := &s.stats
	ft := s.set.FeasTol
	sc := s.score(st)
	s.bestDinf = min(s.bestDinf, st.dinf)
	if sc < s.bestScore {
		s.saveBest(sc)
	}
	// The polish restarts from the first primal-feasible iterate with a
	// gap below 1e-2 (later ones may already lean on the boundary) or,
	// failing that, from the first primal-feasible iterate of all.
	if s.theta == 0 {
		if s.snap[early].mu == 0 {
			s.snap[early].take(s.x, st.mu)
		}
		if s.snap[late].mu == 0 && st.gap < 1e-3 {
			s.snap[late].take(s.x, st.mu)
		}
	}
	// When X • Y has fallen far below |c^T x - F_0 • Y|, the gap is made of
	// residuals times a large x, and lowering mu further only pushes the
	// iterate against the boundary.
	if st.mu*float64(s.md.ntot) < 0.01*math.Abs(st.pobj-st.dobj) && st.gap > s.set.GapTol {
		s.stall.decoupled++
	} else {
		s.stall.decoupled = 0
	}
	for k, v := range [...]float64{st.pinf, st.dinf, st.gap, st.pcert, st.dcert} {
		if v < 0.5*s.stall.best[k] {
			s.stall.best[k], s.stall.since = v, s.iter
		}
	}
	if sc <= 1 {
		if s.verifyOptimal(s.x, s.Y) <= 1 {
			return Optimal, true
		}
		s.stall.verifyFails++
	}
	if st.pcert <= ft && s.verifyPrimalCert() {
		return PrimalInfeasible, true
	}
	if st.dcert <= ft && s.verifyDualCert() {
		return DualInfeasible, true
	}
	switch {
	case s.ctx.Err() != nil:
		return Cancelled, true
	case s.timeUp():
		return TimeLimit, true
	case s.iter >= s.set.MaxIter:
		return MaxIterations, true
	case s.iter-s.stall.since >= stallLimit, s.stall.verifyFails >= 3, s.stall.decoupled >= 3,
		s.bestScore <= nearFactor && s.iter-s.stall.since >= nearStallLimit:
		return NumericalTrouble, true
	}
	return Unsolved, false
}

// saveBest records the current iterate as the best one.
func (s *solver) saveBest(score float64) {
	s.bestScore = score
	copy(s.best.x, s.x)
	s.best.y.copyFrom(s.Y)
	s.best.st = s.stats
}

// timeUp reports whether Settings.TimeLimit has passed.
func (s *solver) timeUp() bool {
	return s.set.TimeLimit > 0 && time.Since(s.start) >= s.set.TimeLimit
}

// dualResidual sets fy = F(Y) and returns ||c - F(Y)||_2 / (1 + ||c||_2).
func (md *model) dualResidual(y blockMat, fy []float64) float64 {
	md.apply(y, fy)
	rd := 0.0
	for i, c := range md.c {
		d := c - fy[i]
		rd += d * d
	}
	return math.Sqrt(rd) / (1 + md.normC)
}
