package sdp

import (
	"context"
	"math"
	"time"
)

// solver is the state of one interior-point solve. Everything it needs is
// allocated in newSolver; the iterations allocate nothing.
type solver struct {
	md    *model
	set   Settings
	ctx   context.Context
	start time.Time

	// Iterate: x, the slack X = sum F_i x_i - F_0 - theta R0 (with
	// R0 = -(F_0 + lamP I)), and Y.
	x     []float64
	X, Y  blockMat
	theta float64
	lamP  float64
	r0lp  []float64 // R0 on the LP coordinates
	// Cholesky factors of X and Y (PSD blocks; lower triangles).
	LX, LY blockMat

	// Per-iteration work.
	xinv         blockMat // X^{-1} (LP: 1/X)
	dX, dY, t    blockMat // directions; t = X^{-1} dX
	sm, mp, next blockMat // scratch product, X^{-1} dXp dYp, trial iterate
	lpD          []float64
	dx, rhs, fdy []float64 // fdy = F(dY)
	ay, ax, am   []float64 // A(Y), A(X^{-1}), A(mp)
	sch          *schur
	lz           *lanczos

	// Scaling constants.
	normR0, trF0 float64

	// Primal snapshots for polish (see stop).
	snap [2]snapshot

	bestDinf float64 // smallest dual infeasibility so far

	// Best iterate so far (by the score of its measures).
	best      iterate
	bestScore float64
	// gapClosed is set when the best pair's gap was closed by
	// projectGap rather than by convergence: it is then near-optimal at
	// best.
	gapClosed bool

	iter  int
	stats stats
	stall struct {
		best        [5]float64 // best pinf, dinf, gap, pcert and dcert
		since       int        // iteration where one of them last halved
		verifyFails int        // optimal by the iterate's measures, not by the check
		decoupled   int        // iterations in a row with X • Y << the gap
	}
	log *logger
}

// snapshot is a primal-feasible x and the mu of its iterate.
type snapshot struct {
	x  []float64
	mu float64
}

// Which snapshot: the first primal-feasible iterate, or the first with a
// gap below 1e-2.
const (
	early = iota
	late
)

// take records x and mu.
func (sn *snapshot) take(x []float64, mu float64) {
	copy(sn.x, x)
	sn.mu = mu
}

// iterate is a saved (x, Y) pair and its measures.
type iterate struct {
	x  []float64
	y  blockMat
	st stats
}

// newSolver builds the model and allocates all workspace.
func newSolver(ctx context.Context, p *Problem, set *Settings, start time.Time) *solver {
	md := buildModel(p)
	s := &solver{md: md, set: *set, ctx: ctx, start: start}
	m := md.m
	s.x, s.dx, s.rhs, s.fdy = make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	s.ay, s.ax, s.am = make([]float64, m), make([]float64, m), make([]float64, m)
	for _, b := range []*blockMat{&s.X, &s.Y, &s.LX, &s.LY, &s.xinv, &s.dX, &s.dY, &s.t, &s.sm, &s.mp, &s.next} {
		*b = newBlockMat(md)
	}
	s.best = iterate{x: make([]float64, m), y: newBlockMat(md)}
	s.snap[early].x = make([]float64, m)
	s.snap[late].x = make([]float64, m)
	s.bestScore = math.Inf(1)
	s.bestDinf = math.Inf(1)
	for k := range s.stall.best {
		s.stall.best[k] = math.Inf(1)
	}
	nmax := 1
	for _, pb := range md.psd {
		nmax = max(nmax, pb.n)
	}
	if md.lp != nil {
		s.lpD = make([]float64, md.lp.n)
		s.r0lp = make([]float64, md.lp.n)
	}
	s.initialPoint()
	for _, pb := range md.psd {
		if lf := pb.lift; lf != nil {
			lf.blk.r0 = pb.r0
			pb = lf.blk
		}
		pb.chooseFormulas()
	}
	s.sch = newSchur(md)
	s.lz = newLanczos(nmax, lanczosSteps)
	s.log = newLogger(set.Log)
	return s
}

// lanczosSteps bounds the Lanczos steps of one step-length estimate.
const lanczosSteps = 30

// initialPoint sets x = 0, X = lamP I, Y = lamD I with the scaling of
// CSDP (Borchers 1999):
//
//	lamD = 10 n max_i (1 + |c_i|) / (1 + ||F_i||_F)
//	lamP = 10 (1 + max(max_i ||F_i||_F, ||F_0||_F)) / sqrt(n)
//
// or lamD = Settings.DualStart when that is set,
// and builds R0 = -(F_0 + lamP I), the direction of the primal residual.
func (s *solver) initialPoint() {
	md := s.md
	n := float64(md.ntot)
	alpha := 0.0
	for i, c := range md.c {
		alpha = max(alpha, (1+math.Abs(c))/(1+md.normF[i]))
	}
	lamD := 10 * n * max(alpha, 1/(1+md.maxNormF))
	if s.set.DualStart > 0 {
		lamD = s.set.DualStart
	}
	lamP := 10 * (1 + max(md.maxNormF, md.normF0)) / math.Sqrt(n)
	s.lamP, s.theta = lamP, 1
	for k, pb := range md.psd {
		x, y := s.X.psd[k], s.Y.psd[k]
		for i := 0; i < pb.n; i++ {
			x[i*pb.n+i] = lamP
			y[i*pb.n+i] = lamD
		}
		pb.r0 = &piece{con: md.m}
		for _, e := range pb.f0 {
			pb.r0.ent = append(pb.r0.ent, entry{e.i, e.j, -e.v})
		}
		for i := 0; i < pb.n; i++ {
			pb.r0.ent = append(pb.r0.ent, entry{int32(i), int32(i), -lamP})
		}
		pb.r0.ent = canonicalEntries(pb.r0.ent)
		pb.r0.expand()
		for _, e := range pb.f0 {
			if e.i == e.j {
				s.trF0 += e.v
			}
		}
	}
	if lb := md.lp; lb != nil {
		for k := 0; k < lb.n; k++ {
			s.X.lp[k], s.Y.lp[k] = lamP, lamD
			s.r0lp[k] = -(lb.f0[k] + lamP)
			s.trF0 += lb.f0[k]
		}
	}
	s.normR0 = s.residualNorm(1)
	s.factorIterates()
}

// residualNorm returns ||theta R0||_F = theta ||F_0 + lamP I||_F, using
// ||F_0 + l I||^2 = ||F_0||^2 + 2 l tr F_0 + l^2 n.
func (s *solver) residualNorm(theta float64) float64 {
	l := s.lamP
	q := s.md.normF0*s.md.normF0 + 2*l*s.trF0 + l*l*float64(s.md.ntot)
	return theta * math.Sqrt(max(q, 0))
}

// certNorm returns ||F_0 + theta R0||_F = ||(1-theta) F_0 - theta lamP I||_F,
// the part of sum F_i x_i that is not the PSD slack X.
func (s *solver) certNorm() float64 {
	a, b := 1-s.theta, -s.theta*s.lamP
	q := a*a*s.md.normF0*s.md.normF0 + 2*a*b*s.trF0 + b*b*float64(s.md.ntot)
	return math.Sqrt(max(q, 0))
}

// factorIterates computes the Cholesky factors of X and Y, reporting
// false if either is not positive definite.
func (s *solver) factorIterates() bool {
	for k, pb := range s.md.psd {
		copy(s.LX.psd[k], s.X.psd[k])
		copy(s.LY.psd[k], s.Y.psd[k])
		if !cholesky(pb.n, s.LX.psd[k], pb.n) || !cholesky(pb.n, s.LY.psd[k], pb.n) {
			return false
		}
	}
	return true
}
