package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

var (
	sides = []blas.Side{blas.Left, blas.Right}
	diags = []blas.Diag{blas.NonUnit, blas.Unit}
)

// triangular returns a well-conditioned k x k triangular matrix with
// leading dimension lda whose other triangle (and diagonal, if unit) is NaN,
// so that reading it shows.
func triangular(rnd *rand.Rand, k, lda int, ul blas.Uplo, d blas.Diag) []float64 {
	a := make([]float64, max(0, (k-1)*lda+k))
	for i := range a {
		a[i] = nan()
	}
	for i := range k {
		for j := range k {
			switch {
			case i == j && d == blas.Unit:
			case i == j:
				a[i*lda+j] = 1 + rnd.Float64()
				if rnd.IntN(2) == 0 {
					a[i*lda+j] = -a[i*lda+j]
				}
			case (j < i) == (ul == blas.Lower):
				a[i*lda+j] = (2*rnd.Float64() - 1) / float64(k)
			}
		}
	}
	return a
}

// forTri runs f for every side, triangle, transpose and diagonal with a few
// sizes, strides and alphas.
func forTri(t *testing.T, f func(t *testing.T, s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n, pad int, alpha float64)) {
	for _, dim := range [][2]int{{1, 1}, {3, 7}, {17, 9}, {40, 33}, {77, 130}, {130, 45}} {
		for _, s := range sides {
			for _, ul := range uplos {
				for _, tA := range transposes {
					for _, d := range diags {
						for _, pad := range []int{0, 5} {
							for _, alpha := range scalars {
								f(t, s, ul, tA, d, dim[0], dim[1], pad, alpha)
							}
						}
					}
				}
			}
		}
	}
}

// triRoutine is the signature of Dtrsm and Dtrmm.
type triRoutine func(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int)

// testTri compares a triangular routine with gonum's on every variant.
func testTri(t *testing.T, seed uint64, tol float64, got, want triRoutine) {
	rnd := rand.New(rand.NewPCG(seed, seed+1))
	forTri(t, func(t *testing.T, s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n, pad int, alpha float64) {
		name := fmt.Sprintf("%c%c%c%c/m%d/n%d/pad%d/alpha%v", s, ul, tA, d, m, n, pad, alpha)
		k := n
		if s == blas.Left {
			k = m
		}
		lda, ldb := k+pad, n+pad
		a := triangular(rnd, k, lda, ul, d)
		b := randSlice(rnd, (m-1)*ldb+n) // as short as allowed
		ref := append([]float64(nil), b...)
		want(s, ul, tA, d, m, n, alpha, a, lda, ref, ldb)
		got(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		checkClose(t, name, b, ref, tol, 1)
	})
}

func TestDtrsm(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		testTri(t, 5, 1e-12, Impl{}.Dtrsm, gonum.Implementation{}.Dtrsm)
	})
}

func TestDtrmm(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		testTri(t, 7, 1e-13, Impl{}.Dtrmm, gonum.Implementation{}.Dtrmm)
	})
}
