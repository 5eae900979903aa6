package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

var transposes = []blas.Transpose{blas.NoTrans, blas.Trans, blas.ConjTrans}

// scalars are the alpha and beta values with special meanings, plus a
// general one.
var scalars = []float64{0, 1, -0.7}

func TestDgemm(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(1, 2))
		dims := [][3]int{{1, 1, 1}, {3, 5, 0}, {7, 9, 13}, {17, 16, 31}, {33, 50, 29}, {8, 24, 40}, {61, 73, 300}, {150, 49, 2}}
		for _, d := range dims {
			m, n, k := d[0], d[1], d[2]
			for _, tA := range transposes {
				for _, tB := range transposes {
					for _, pad := range []int{0, 3} {
						for _, alpha := range scalars {
							for _, beta := range scalars {
								name := fmt.Sprintf("%v%v/m%d/n%d/k%d/pad%d/alpha%v/beta%v", tA, tB, m, n, k, pad, alpha, beta)
								lda := max(1, k) + pad
								aRows := m
								if tA != blas.NoTrans {
									lda, aRows = max(1, m)+pad, k
								}
								ldb := max(1, n) + pad
								bRows := k
								if tB != blas.NoTrans {
									ldb, bRows = max(1, k)+pad, n
								}
								ldc := max(1, n) + pad
								// Slices as short as allowed.
								a := randSlice(rnd, max(0, aRows*lda-pad))
								b := randSlice(rnd, max(0, bRows*ldb-pad))
								c := randSlice(rnd, m*ldc-pad)
								want := append([]float64(nil), c...)
								if beta == 0 { // C must not be read
									for i := range c {
										if i%ldc < n {
											c[i] = nan()
										}
									}
								}
								gonum.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
								Impl{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
								checkClose(t, name, c, want, 1e-14*float64(k+1), 1)
							}
						}
					}
				}
			}
		}
	})
}

// TestDgemmRows checks DgemmRows against the plain sums: rows of C at
// evenly stepping offsets (in place), in groups that break the step
// within a tile (through the buffer), rows that overlap, and a single row.
func TestDgemmRows(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(5, 6))
		for _, d := range [][3]int{{1, 7, 3}, {8, 24, 16}, {13, 50, 9}, {48, 61, 33}, {144, 100, 16}, {3, 1, 1}, {5, 0, 4}, {4, 6, 0}} {
			m, n, k := d[0], d[1], d[2]
			for _, layout := range []string{"even", "groups", "overlap"} {
				off := make([]int, m)
				pos := 0
				for i := range off {
					gap := 2
					if layout == "groups" && i%3 == 0 {
						gap += 1 + rnd.IntN(5)
					}
					off[i] = pos + gap
					pos = off[i] + n
					if layout == "overlap" {
						off[i] = (i%8)*(n+1) + i/8%3
						pos = max(pos, off[i]+n)
					}
				}
				a, b := randSlice(rnd, m*max(1, k)), randSlice(rnd, k*max(1, n)+1)
				c := randSlice(rnd, pos+2)
				want := append([]float64(nil), c...)
				for i, o := range off {
					for j := range n {
						s := 0.0
						for p := range k {
							s += a[i*k+p] * b[p*n+j]
						}
						want[o+j] += s
					}
				}
				Impl{}.DgemmRows(m, n, k, a, max(1, k), b, max(1, n), c, off)
				checkClose(t, fmt.Sprintf("m%d n%d k%d %s", m, n, k, layout), c, want, 1e-13, float64(k+1))
			}
		}
	})
}
