package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestDsymm(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(13, 14))
		for _, d := range [][2]int{{1, 1}, {3, 7}, {17, 9}, {40, 33}, {77, 130}} {
			m, n := d[0], d[1]
			for _, s := range sides {
				for _, ul := range uplos {
					for _, pad := range []int{0, 5} {
						for _, alpha := range scalars {
							for _, beta := range scalars {
								name := fmt.Sprintf("%c%c/m%d/n%d/pad%d/alpha%v/beta%v", s, ul, m, n, pad, alpha, beta)
								k := n
								if s == blas.Left {
									k = m
								}
								lda, ldb, ldc := k+pad, n+pad, n+pad
								a := randSlice(rnd, k*lda)
								for i := range k { // the other triangle must not be read
									for j := range k {
										if (j > i) == (ul == blas.Lower) && i != j {
											a[i*lda+j] = nan()
										}
									}
								}
								b := randSlice(rnd, m*ldb)
								c := randSlice(rnd, m*ldc)
								want := append([]float64(nil), c...)
								gonum.Implementation{}.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, want, ldc)
								Impl{}.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
								checkClose(t, name, c, want, 1e-14*float64(k+1), 1)
							}
						}
					}
				}
			}
		}
	})
}
