package dense

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestLongRandom compares the Level-3 routines with gonum's on random
// shapes, strides and scalars with the default blocking, sizes crossing
// the block edges (kc, mc and, rarely, nc). It runs only with
// NNBOUND_LONG=1, for NNBOUND_LONG_SECONDS (default 60) seconds.
func TestLongRandom(t *testing.T) {
	if os.Getenv("NNBOUND_LONG") != "1" {
		t.Skip("set NNBOUND_LONG=1 to run")
	}
	budget := 60 * time.Second
	if s := os.Getenv("NNBOUND_LONG_SECONDS"); s != "" {
		var sec int
		fmt.Sscan(s, &sec)
		budget = time.Duration(sec) * time.Second
	}
	rnd := rand.New(rand.NewPCG(21, 22))
	dim := func() int {
		switch rnd.IntN(10) {
		case 0:
			return nc - 2 + rnd.IntN(4)
		case 1, 2:
			edges := []int{kc, mc, 2 * mc}
			return edges[rnd.IntN(len(edges))] - 2 + rnd.IntN(4)
		default:
			return 1 + rnd.IntN(300)
		}
	}
	scalar := func() float64 { return []float64{0, 1, -1, rnd.NormFloat64()}[rnd.IntN(4)] }
	trans := func() blas.Transpose { return transposes[rnd.IntN(3)] }
	deadline := time.Now().Add(budget)
	runs := 0
	for ; time.Now().Before(deadline); runs++ {
		m, n, k := dim(), dim(), dim()
		if m*n*k > 400*400*400 && rnd.IntN(4) > 0 {
			continue // keep most runs quick
		}
		pad := rnd.IntN(3)
		alpha, beta := scalar(), scalar()
		switch rnd.IntN(4) {
		case 0:
			tA, tB := trans(), trans()
			lda, aRows := k+pad, m
			if tA != blas.NoTrans {
				lda, aRows = m+pad, k
			}
			ldb, bRows := n+pad, k
			if tB != blas.NoTrans {
				ldb, bRows = k+pad, n
			}
			a, b := randSlice(rnd, aRows*lda), randSlice(rnd, bRows*ldb)
			c := randSlice(rnd, m*(n+pad))
			want := append([]float64(nil), c...)
			gonum.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, want, n+pad)
			Impl{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, n+pad)
			checkClose(t, fmt.Sprintf("Dgemm %c%c m%d n%d k%d", tA, tB, m, n, k), c, want, 1e-13*float64(k+1), 1)
		case 1:
			ul, tA := uplos[rnd.IntN(2)], trans()
			rows, cols := n, k
			if tA != blas.NoTrans {
				rows, cols = k, n
			}
			a := randSlice(rnd, rows*(cols+pad))
			c := randSlice(rnd, n*(n+pad))
			want := append([]float64(nil), c...)
			gonum.Implementation{}.Dsyrk(ul, tA, n, k, alpha, a, cols+pad, beta, want, n+pad)
			Impl{}.Dsyrk(ul, tA, n, k, alpha, a, cols+pad, beta, c, n+pad)
			checkClose(t, fmt.Sprintf("Dsyrk %c%c n%d k%d", ul, tA, n, k), c, want, 1e-13*float64(k+1), 1)
		case 2:
			s, ul, tA, d := sides[rnd.IntN(2)], uplos[rnd.IntN(2)], trans(), diags[rnd.IntN(2)]
			kk := n
			if s == blas.Left {
				kk = m
			}
			a := triangular(rnd, kk, kk+pad, ul, d)
			b := randSlice(rnd, m*(n+pad))
			want := append([]float64(nil), b...)
			if rnd.IntN(2) == 0 {
				gonum.Implementation{}.Dtrsm(s, ul, tA, d, m, n, alpha, a, kk+pad, want, n+pad)
				Impl{}.Dtrsm(s, ul, tA, d, m, n, alpha, a, kk+pad, b, n+pad)
				checkClose(t, fmt.Sprintf("Dtrsm %c%c%c%c m%d n%d", s, ul, tA, d, m, n), b, want, 1e-11, 1)
			} else {
				gonum.Implementation{}.Dtrmm(s, ul, tA, d, m, n, alpha, a, kk+pad, want, n+pad)
				Impl{}.Dtrmm(s, ul, tA, d, m, n, alpha, a, kk+pad, b, n+pad)
				checkClose(t, fmt.Sprintf("Dtrmm %c%c%c%c m%d n%d", s, ul, tA, d, m, n), b, want, 1e-12, 1)
			}
		case 3:
			s, ul := sides[rnd.IntN(2)], uplos[rnd.IntN(2)]
			kk := n
			if s == blas.Left {
				kk = m
			}
			a := randSlice(rnd, kk*(kk+pad))
			b, c := randSlice(rnd, m*(n+pad)), randSlice(rnd, m*(n+pad))
			want := append([]float64(nil), c...)
			gonum.Implementation{}.Dsymm(s, ul, m, n, alpha, a, kk+pad, b, n+pad, beta, want, n+pad)
			Impl{}.Dsymm(s, ul, m, n, alpha, a, kk+pad, b, n+pad, beta, c, n+pad)
			checkClose(t, fmt.Sprintf("Dsymm %c%c m%d n%d", s, ul, m, n), c, want, 1e-13*float64(kk+1), 1)
		}
	}
	t.Logf("%d random comparisons", runs)
}
