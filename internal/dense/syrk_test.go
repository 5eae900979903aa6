package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

var uplos = []blas.Uplo{blas.Lower, blas.Upper}

func TestDsyrk(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(3, 4))
		for _, d := range [][2]int{{1, 1}, {5, 0}, {7, 13}, {17, 31}, {50, 29}, {73, 300}, {100, 3}} {
			n, k := d[0], d[1]
			for _, ul := range uplos {
				for _, tA := range transposes {
					for _, pad := range []int{0, 3} {
						for _, alpha := range scalars {
							for _, beta := range scalars {
								for _, two := range []bool{false, true} {
									name := fmt.Sprintf("%v/%v/n%d/k%d/pad%d/alpha%v/beta%v/2k%v", ul, tA, n, k, pad, alpha, beta, two)
									rows, cols := n, k
									if tA != blas.NoTrans {
										rows, cols = k, n
									}
									lda := max(1, cols) + pad
									ldc := max(1, n) + pad
									a := randSlice(rnd, max(0, rows*lda))
									b := randSlice(rnd, max(0, rows*lda))
									c := randSlice(rnd, n*ldc)
									want := append([]float64(nil), c...)
									// With beta == 0, C must not be read (gonum's
									// Dsyrk reads it in one case, so it gets numbers).
									if beta == 0 {
										for i := range n {
											for j := range n {
												if (ul == blas.Lower) == (j <= i) {
													c[i*ldc+j] = nan()
												}
											}
										}
									}
									if two {
										gonum.Implementation{}.Dsyr2k(ul, tA, n, k, alpha, a, lda, b, lda, beta, want, ldc)
										Impl{}.Dsyr2k(ul, tA, n, k, alpha, a, lda, b, lda, beta, c, ldc)
									} else {
										gonum.Implementation{}.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, want, ldc)
										Impl{}.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
									}
									checkClose(t, name, c, want, 1e-14*float64(k+1), 1)
								}
							}
						}
					}
				}
			}
		}
	})
}
