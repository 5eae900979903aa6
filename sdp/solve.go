package sdp

import (
	"context"
	"math"
	"slices"
	"time"
)

// Result is what a solve returns.
//
// The objectives are always those of the returned X and Y. For
// PrimalInfeasible, Y is a certificate scaled so that F_0 • Y = 1, with
// F_i • Y ≈ 0 and Y PSD (so the dual is unbounded); for DualInfeasible, X
// is a certificate scaled so that c^T x = -1, with sum F_i x_i PSD (so the
// primal is unbounded). When a solve stops short of optimal, X and Y are
// the best iterate found.
type Result struct {
	Status Status
	// X is the primal variable x (length m).
	X []float64
	// Y is the dual matrix, one slice per block: n*n row-major for a PSD
	// block, n values for a diagonal block.
	Y [][]float64
	// PrimalObjective is c^T x; DualObjective is F_0 • Y.
	PrimalObjective, DualObjective float64
	// PrimalInfeasibility, DualInfeasibility and RelGap are the final
	// relative residuals and gap as the solver measured them:
	//
	//	||sum F_i x_i - F_0 - X||_F / (1 + ||F_0||_F)   (X the slack iterate)
	//	||c - F(Y)||_2 / (1 + ||c||_2)
	//	|c^T x - F_0 • Y| / max(1, (|c^T x| + |F_0 • Y|)/2)
	PrimalInfeasibility, DualInfeasibility, RelGap float64
	Iterations                                     int
	Time                                           time.Duration
}

// Solve solves p with the given settings (nil means DefaultSettings). The
// error is non-nil only for an ill-formed problem or invalid settings; how
// the solve ended is Result.Status.
//
// The method is an infeasible primal-dual interior-point method with the
// HKM search direction and Mehrotra's predictor-corrector. Solve never
// reports Optimal (or NearOptimal, PrimalInfeasible, DualInfeasible)
// unless a check recomputed from the returned x and Y passes: the
// minimum eigenvalue of sum F_i x_i - F_0 and of Y, the residuals
// F_i • Y - c_i, and the gap, each against its tolerance (1000 times it
// for NearOptimal). A solve that stops at MaxIter or breaks down reports
// NearOptimal when its best iterate passes the looser check; at a time
// limit or cancellation it reports TimeLimit or Cancelled with the best
// iterate.
func Solve(ctx context.Context, p *Problem, set *Settings) (*Result, error) {
	start := time.Now()
	s := DefaultSettings()
	if set != nil {
		s = *set
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	pre := presolve(p)
	if pre == nil {
		return solveOnce(ctx, p, &s, start), nil
	}
	r := solveOnce(ctx, pre.q, &s, start)
	pre.restore(r, &s)
	if r.Status == NumericalTrouble && ctx.Err() == nil {
		// The reductions remove what has no interior, but rounding can
		// hide more of it; the problem as given sometimes fares better.
		r2 := solveOnce(ctx, p, &s, start)
		if r2.Status.conclusive() {
			r2.Iterations += r.Iterations
			r = r2
		}
	}
	r.Time = time.Since(start)
	return r, nil
}

// solveOnce runs the interior-point method on p.
func solveOnce(ctx context.Context, p *Problem, s *Settings, start time.Time) *Result {
	sv := newSolver(ctx, p, s, start)
	r := sv.run()
	r.Time = time.Since(start)
	sv.log.status(r)
	return r
}

// run iterates until a stopping rule fires and returns the result.
func (s *solver) run() *Result {
	status := Unsolved
	for s.iter = 0; ; s.iter++ {
		s.measure()
		s.log.line(s.iter, &s.stats)
		var done bool
		if status, done = s.stop(); done {
			break
		}
		if !s.iterate() {
			status = NumericalTrouble
			break
		}
	}
	if status == NumericalTrouble && s.bestScore > 1 {
		// MaxIter and TimeLimit are the caller's budget: no polish then.
		s.finishPolish()
	}
	if (status == NumericalTrouble || status == MaxIterations) && s.bestScore > 1 {
		s.projectDual()
		if s.bestScore > nearFactor {
			s.projectGap()
		}
	}
	return s.result(status)
}

// result packs the returned iterate.
func (s *solver) result(status Status) *Result {
	md := s.md
	x, y, st := s.x, s.Y, s.stats
	switch status {
	case Optimal:
	case PrimalInfeasible:
		y = s.next
		y.copyFrom(s.Y)
		scaleBlock(y, 1/md.f0Dot(s.Y))
	case DualInfeasible:
		x = slices.Clone(s.x)
		scal(-1/dot(md.c, x), x)
	default:
		if !math.IsInf(s.bestScore, 1) {
			x, y, st = s.best.x, s.best.y, s.best.st
		}
		if status == MaxIterations || status == NumericalTrouble {
			switch v := s.verifyOptimal(x, y); {
			case v <= 1 && !s.gapClosed:
				status = Optimal
			case v <= nearFactor:
				status = NearOptimal
			}
		}
	}
	r := &Result{Status: status, X: slices.Clone(x), Y: s.export(y), Iterations: s.iter}
	r.PrimalObjective = dot(md.c, r.X)
	r.DualObjective = md.f0Dot(y)
	r.PrimalInfeasibility, r.DualInfeasibility = st.pinf, st.dinf
	r.RelGap = relGap(r.PrimalObjective, r.DualObjective)
	return r
}

// export converts a block matrix to the layout of Result.Y.
func (s *solver) export(y blockMat) [][]float64 {
	md := s.md
	out := make([][]float64, len(md.psdOf))
	for b, k := range md.psdOf {
		if k >= 0 {
			out[b] = slices.Clone(y.psd[k])
		}
	}
	if lb := md.lp; lb != nil {
		for k, w := range lb.where {
			if out[w.block] == nil {
				out[w.block] = make([]float64, s.blockLen(w.block))
			}
			out[w.block][w.index] = y.lp[k]
		}
	}
	return out
}

// blockLen is the length of a diagonal (or order-1) block's slice.
func (s *solver) blockLen(b int) int {
	n := 0
	for _, w := range s.md.lp.where {
		if w.block == b {
			n = max(n, w.index+1)
		}
	}
	return n
}

// scaleBlock sets a *= alpha.
func scaleBlock(a blockMat, alpha float64) {
	for _, d := range a.psd {
		scal(alpha, d)
	}
	scal(alpha, a.lp)
}
