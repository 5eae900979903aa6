package dense

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestDgemmPacked checks that products with a packed B equal DgemmSerial's
// to the bit, on shapes below and above the size handed to gonum, and with
// blocks small enough to cross every block edge, and with one PackedB
// reused by products of different heights.
func TestDgemmPacked(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		for _, blocks := range [][3]int{{}, {8, 16, 48}} { // {}: the defaults
			restore := func() {}
			if blocks[0] > 0 {
				restore = setBlocking(blocks[0], blocks[1], blocks[2])
			}
			rnd := rand.New(rand.NewPCG(3, 4))
			for _, d := range [][2]int{{1, 1}, {3, 0}, {50, 50}, {13, 100}, {100, 7}, {61, 73}} {
				n, k := d[0], d[1]
				for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
					ldb, bRows := n+2, k
					if tB == blas.Trans {
						ldb, bRows = k+2, n
					}
					b := randSlice(rnd, max(1, bRows*ldb))
					p := NewPackedB(tB, k, n, b, ldb)
					for _, m := range []int{1, 2, 9, 40} {
						for _, beta := range scalars {
							name := fmt.Sprintf("blocks%v/%v/m%d/n%d/k%d/beta%v", blocks, tB, m, n, k, beta)
							a := randSlice(rnd, m*max(1, k))
							c := randSlice(rnd, m*n)
							want := append([]float64(nil), c...)
							Impl{}.DgemmSerial(blas.NoTrans, tB, m, n, k, 0.9, a, max(1, k), b, ldb, beta, want, max(1, n))
							Impl{}.DgemmPacked(m, 0.9, a, max(1, k), p, beta, c, max(1, n))
							for i := range c {
								if math.Float64bits(c[i]) != math.Float64bits(want[i]) {
									t.Fatalf("%s: c[%d] = %v, DgemmSerial %v", name, i, c[i], want[i])
								}
							}
						}
					}
				}
			}
			restore()
		}
	})
}
