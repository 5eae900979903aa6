package sdp

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

var timeZero time.Time

// TestSchurFormulas checks every way of assembling the Schur complement
// (F1, F2, F3 rows, the dense and sparse low-rank routes, the LP block and
// the residual row m) against B_ij = sum Tr(F_i X^{-1} F_j Y) computed
// from dense matrices.
func TestSchurFormulas(t *testing.T) {
	expandSmallFactors = false
	defer func() { expandSmallFactors = true }()
	for _, seed := range []uint64{1, 2, 3} {
		p := randomMixedProblem(seed)
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, form := range []formula{formulaF1, formulaF2, formulaF3} {
			for _, denseLR := range []bool{false, true} {
				s := randomIterate(t, p, seed)
				for _, pb := range s.md.psd {
					for _, pc := range pb.sparse {
						pc.form = form
					}
					pb.lr = nil
					if denseLR {
						pb.lr = pb.buildLowRank()
					}
					pb.crossSparse = len(pb.lowrank) > 0 && form != formulaF1
				}
				s.sch = newSchur(s.md)
				s.sch.assemble(s.md, s.xinv, s.Y, s.LX, &s.LY, s.lpD, s.r0lp, true)
				want := bruteSchur(s)
				m := s.md.m
				for i := 0; i <= m; i++ {
					for j := 0; j <= min(i, m-1); j++ {
						got := s.sch.b[i*s.sch.ld+j]
						if d := math.Abs(got - want[i][j]); d > 1e-9*(1+math.Abs(want[i][j])) {
							t.Errorf("seed %d %s dense low rank %v: B[%d][%d] = %.12g, want %.12g",
								seed, form, denseLR, i, j, got, want[i][j])
						}
					}
				}
			}
		}
	}
}

// randomIterate returns a solver of p at a random positive definite
// iterate X, Y, with X inverted.
func randomIterate(t *testing.T, p *Problem, seed uint64) *solver {
	t.Helper()
	s := newSolver(t.Context(), p, &Settings{GapTol: 1e-8, FeasTol: 1e-8, MaxIter: 10}, timeZero)
	rng := rand.New(rand.NewPCG(seed, 99))
	randomPD(rng, s.md, s.X)
	randomPD(rng, s.md, s.Y)
	if !s.factorIterates() {
		t.Fatal("random iterate not positive definite")
	}
	s.invert()
	return s
}

// randomMixedProblem has a PSD block of order 7 whose constraints are
// sparse, low-rank or both, a second PSD block, and a diagonal block.
func randomMixedProblem(seed uint64) *Problem {
	rng := rand.New(rand.NewPCG(seed, 7))
	const m = 9
	p := &Problem{
		Blocks:  []Block{{Size: 7}, {Size: 3}, {Size: 4, Diagonal: true}},
		C:       make([]float64, m),
		F:       make([]Matrix, m+1),
		Factors: make([][]Factor, m+1),
	}
	for i := 0; i <= m; i++ {
		if i > 0 {
			p.C[i-1] = rng.NormFloat64()
		}
		// Sparse entries: none, a few, or many.
		for k := 0; k < []int{0, 2, 12}[(i+int(seed))%3]; k++ {
			a, b := rng.IntN(7), rng.IntN(7)
			p.F[i] = append(p.F[i], Entry{Block: 0, I: min(a, b), J: max(a, b), V: rng.NormFloat64()})
		}
		if i%2 == 1 {
			p.F[i] = append(p.F[i], Entry{Block: 1, I: i % 3, J: 2, V: rng.NormFloat64()})
		}
		if i%3 != 2 {
			p.F[i] = append(p.F[i], Entry{Block: 2, I: i % 4, J: i % 4, V: rng.NormFloat64()})
		}
		if i > 0 && i%3 != 0 {
			for r := 0; r < 1+i%2; r++ {
				idx := rng.Perm(7)[:2+rng.IntN(3)]
				u := SparseVec{Index: idx, Value: make([]float64, len(idx))}
				for k := range u.Value {
					u.Value[k] = rng.NormFloat64()
				}
				p.Factors[i] = append(p.Factors[i], Factor{Block: 0, D: rng.NormFloat64(), U: u})
			}
		}
	}
	return p
}

// randomPD sets a to a random positive definite block matrix.
func randomPD(rng *rand.Rand, md *model, a blockMat) {
	for k, pb := range md.psd {
		n := pb.n
		g := make([]float64, n*n)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		d := a.psd[k]
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := 0.0
				for l := 0; l < n; l++ {
					v += g[i*n+l] * g[j*n+l]
				}
				if i == j {
					v += 0.5
				}
				d[i*n+j] = v
			}
		}
	}
	for k := range a.lp {
		a.lp[k] = 0.5 + rng.Float64()
	}
}

// bruteSchur returns B (rows 0..m, row m for R0) from dense F_i.
func bruteSchur(s *solver) [][]float64 {
	md := s.md
	m := md.m
	dense := func(pb *psdBlock, pc *piece) []float64 {
		d := make([]float64, pb.n*pb.n)
		if pc != nil {
			pc.addTo(d, pb.n, 1)
			symmetrizeFromUpper(d, pb.n)
		}
		return d
	}
	b := make([][]float64, m+1)
	for i := range b {
		b[i] = make([]float64, m+1)
	}
	for k, pb := range md.psd {
		n := pb.n
		f := make([][]float64, m+1)
		for i := 0; i < m; i++ {
			f[i] = dense(pb, nil)
		}
		for _, pc := range pb.pieces {
			f[pc.con] = dense(pb, pc)
		}
		f[m] = dense(pb, pb.r0)
		xi, y := s.xinv.psd[k], s.Y.psd[k]
		prod := func(a, c []float64) []float64 {
			r := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					for l := 0; l < n; l++ {
						r[i*n+j] += a[i*n+l] * c[l*n+j]
					}
				}
			}
			return r
		}
		for i := 0; i <= m; i++ {
			left := prod(f[i], xi)
			for j := 0; j <= m; j++ {
				r := prod(prod(left, f[j]), y)
				for l := 0; l < n; l++ {
					b[i][j] += r[l*n+l]
				}
			}
		}
	}
	if lb := md.lp; lb != nil {
		for k := 0; k < lb.n; k++ {
			col := make([]float64, m+1)
			for t := lb.ptr[k]; t < lb.ptr[k+1]; t++ {
				col[lb.con[t]] = lb.val[t]
			}
			col[m] = s.r0lp[k]
			for i := 0; i <= m; i++ {
				for j := 0; j <= m; j++ {
					b[i][j] += col[i] * col[j] * s.lpD[k]
				}
			}
		}
	}
	return b
}

// TestMirrorLower checks the tiled copy of the strict lower triangle into
// the strict upper one against the element-by-element definition, on
// orders around the tile edge, with a leading dimension larger than m.
func TestMirrorLower(t *testing.T) {
	for _, m := range []int{0, 1, 31, 32, 33, 70, 1000} {
		ld := m + 3
		b := make([]float64, m*ld)
		for i := range b {
			b[i] = float64(i)
		}
		want := append([]float64(nil), b...)
		for i := 0; i < m; i++ {
			for j := 0; j < i; j++ {
				want[j*ld+i] = want[i*ld+j]
			}
		}
		mirrorLower(m, b, ld)
		for i := range b {
			if b[i] != want[i] {
				t.Fatalf("m=%d: element %d = %v, want %v", m, i, b[i], want[i])
			}
		}
	}
}
