package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestDgemv(t *testing.T) {
	rnd := rand.New(rand.NewPCG(15, 16))
	for _, d := range [][2]int{{1, 1}, {3, 70}, {33, 31}, {64, 64}, {129, 77}, {5, 300}} {
		m, n := d[0], d[1]
		for _, tA := range transposes {
			for _, inc := range []int{1, 2, -1} {
				for _, pad := range []int{0, 3} {
					for _, alpha := range scalars {
						for _, beta := range scalars {
							name := fmt.Sprintf("%c/m%d/n%d/inc%d/pad%d/alpha%v/beta%v", tA, m, n, inc, pad, alpha, beta)
							lenX, lenY := n, m
							if tA != blas.NoTrans {
								lenX, lenY = m, n
							}
							lda := n + pad
							a := randSlice(rnd, m*lda)
							x := randSlice(rnd, lenX*abs(inc))
							y := randSlice(rnd, lenY*abs(inc))
							want := append([]float64(nil), y...)
							gonum.Implementation{}.Dgemv(tA, m, n, alpha, a, lda, x, inc, beta, want, inc)
							Impl{}.Dgemv(tA, m, n, alpha, a, lda, x, inc, beta, y, inc)
							checkClose(t, name, y, want, 1e-14*float64(m+n), 1)
						}
					}
				}
			}
		}
	}
}

func TestDsymv(t *testing.T) {
	rnd := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{1, 5, 33, 64, 131} {
		for _, ul := range uplos {
			for _, inc := range []int{1, 2} {
				for _, pad := range []int{0, 3} {
					for _, alpha := range scalars {
						for _, beta := range scalars {
							name := fmt.Sprintf("%c/n%d/inc%d/pad%d/alpha%v/beta%v", ul, n, inc, pad, alpha, beta)
							lda := n + pad
							a := randSlice(rnd, n*lda)
							for i := range n {
								for j := range n {
									if (j > i) == (ul == blas.Lower) && i != j {
										a[i*lda+j] = nan()
									}
								}
							}
							x := randSlice(rnd, n*inc)
							y := randSlice(rnd, n*inc)
							want := append([]float64(nil), y...)
							gonum.Implementation{}.Dsymv(ul, n, alpha, a, lda, x, inc, beta, want, inc)
							Impl{}.Dsymv(ul, n, alpha, a, lda, x, inc, beta, y, inc)
							checkClose(t, name, y, want, 1e-14*float64(n), 1)
						}
					}
				}
			}
		}
	}
}

func abs(i int) int { return max(i, -i) }
