package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestDtrmm(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(7, 8))
		forTri(t, func(t *testing.T, s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n, pad int, alpha float64) {
			name := fmt.Sprintf("%c%c%c%c/m%d/n%d/pad%d/alpha%v", s, ul, tA, d, m, n, pad, alpha)
			k := n
			if s == blas.Left {
				k = m
			}
			lda, ldb := k+pad, n+pad
			a := triangular(rnd, k, lda, ul, d)
			b := randSlice(rnd, m*ldb)
			want := append([]float64(nil), b...)
			gonum.Implementation{}.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, want, ldb)
			Impl{}.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
			checkClose(t, name, b, want, 1e-13, 1)
		})
	})
}
