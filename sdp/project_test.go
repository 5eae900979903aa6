package sdp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// maxEigProblem is min t s.t. t I - A >= 0 for a random symmetric A of
// order n (seeded): its dual is max A • Y s.t. tr Y = 1, Y >= 0, and both
// optima are lambda_max(A).
func maxEigProblem(seed uint64, n int) *Problem {
	rng := rand.New(rand.NewPCG(seed, 3))
	p := &Problem{Blocks: []Block{{Size: n}}, C: []float64{1}, F: make([]Matrix, 2)}
	for i := 0; i < n; i++ {
		p.F[1] = append(p.F[1], Entry{Block: 0, I: i, J: i, V: 1})
		for j := i; j < n; j++ {
			p.F[0] = append(p.F[0], Entry{Block: 0, I: i, J: j, V: rng.NormFloat64()})
		}
	}
	return p
}

// TestProjectGap checks that projectGap leaves F(Y') = c and
// F_0 • Y' = c^T x, and that a pair whose gap it closed is reported
// near-optimal even when the check would pass it as optimal.
func TestProjectGap(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		p := maxEigProblem(seed, 5)
		s := newSolver(t.Context(), p, &Settings{GapTol: 1e-8, FeasTol: 1e-8, MaxIter: 100}, timeZero)
		if r := s.run(); r.Status != Optimal {
			t.Fatalf("seed %d: status %s, want optimal", seed, r.Status)
		}
		// Move the optimal Y off F(Y) = c and off the gap (by 1e-9 of
		// the identity), then pretend the solve ended in trouble.
		copy(s.best.x, s.x)
		s.best.y.copyFrom(s.Y)
		for k, pb := range s.md.psd {
			for i := 0; i < pb.n; i++ {
				s.best.y.psd[k][i*pb.n+i] += 1e-9
			}
		}
		s.bestScore = 2 * nearFactor
		if !s.projectGap() {
			t.Fatalf("seed %d: projection refused", seed)
		}
		md := s.md
		md.apply(s.best.y, s.ay)
		for i, c := range md.c {
			if d := math.Abs(s.ay[i] - c); d > 1e-12 {
				t.Errorf("seed %d: F_%d • Y' - c = %.2g", seed, i+1, d)
			}
		}
		pobj, dobj := dot(md.c, s.best.x), md.f0Dot(s.best.y)
		if math.Abs(pobj-dobj) > 1e-12*max(1, math.Abs(pobj)) {
			t.Errorf("seed %d: gap %.3g after projection", seed, pobj-dobj)
		}
		if v := s.verifyOptimal(s.best.x, s.best.y); v > 1 {
			t.Errorf("seed %d: projected pair scores %.3g, want <= 1", seed, v)
		}
		if r := s.result(NumericalTrouble); r.Status != NearOptimal {
			t.Errorf("seed %d: status %s, want %s (the gap was closed, not converged)", seed, r.Status, NearOptimal)
		}
	}
}
