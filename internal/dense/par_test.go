package dense

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestParallelBitIdentical checks that the shared products give the same
// bits whatever GOMAXPROCS: every routine built on gemm is run with 1 to 4
// processors and products shared from the smallest size (parWork = 1), on
// sizes that are not multiples of the tiles, and compared bit for bit
// with the run on one processor (the serial driver).
func TestParallelBitIdentical(t *testing.T) {
	savedWork, savedWork2, savedProcs := parWork, parWorkLevel2, runtime.GOMAXPROCS(0)
	defer func() { parWork, parWorkLevel2 = savedWork, savedWork2; runtime.GOMAXPROCS(savedProcs) }()
	parWork, parWorkLevel2 = 1, 1
	withKernels(t, func(t *testing.T) {
		for _, n := range []int{50, 97, 150, 301, 600} {
			rnd := rand.New(rand.NewPCG(21, uint64(n)))
			x, y, z := randSlice(rnd, n*n), randSlice(rnd, n*n), randSlice(rnd, n*n)
			s := spd(rnd, n)
			for _, c := range []struct {
				name string
				f    func(w []float64)
			}{
				{"Dgemm", func(w []float64) { Impl{}.Dgemm(blas.NoTrans, blas.Trans, n, n-7, n, 1.5, x, n, y, n, 0.5, w, n) }},
				{"Dsyrk/lower", func(w []float64) { Impl{}.Dsyrk(blas.Lower, blas.NoTrans, n, n, -1, x, n, 1, w, n) }},
				{"Dsyrk/upper", func(w []float64) { Impl{}.Dsyrk(blas.Upper, blas.Trans, n, n, 0.3, x, n, 2, w, n) }},
				{"Dsyr2k/lower", func(w []float64) { Impl{}.Dsyr2k(blas.Lower, blas.NoTrans, n, n, 1, x, n, y, n, 1, w, n) }},
				{"Dtrsm", func(w []float64) { Impl{}.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, n, n, 1, s, n, w, n) }},
				{"Dtrsv/notrans", func(w []float64) { Impl{}.Dtrsv(blas.Lower, blas.NoTrans, blas.NonUnit, n, s, n, w[:n], 1) }},
				{"Dtrsv/trans", func(w []float64) { Impl{}.Dtrsv(blas.Lower, blas.Trans, blas.NonUnit, n, s, n, w[:n], 1) }},
				{"Potrf", func(w []float64) { copy(w, s); Potrf(n, w, n) }},
				{"Potrf+Potri", func(w []float64) { copy(w, s); Potrf(n, w, n); Potri(n, w, n) }},
			} {
				var want []float64
				for procs := 1; procs <= 4; procs++ {
					runtime.GOMAXPROCS(procs)
					got := append([]float64(nil), z...)
					c.f(got)
					if want == nil {
						want = got
						continue
					}
					if i := firstBitDiff(got, want); i >= 0 {
						t.Fatalf("%s/n%d: GOMAXPROCS=%d: element %d = %v, want %v (GOMAXPROCS=1)",
							c.name, n, procs, i, got[i], want[i])
					}
				}
			}
		}
	})
}

// firstBitDiff returns the first index where the bits of got and want
// differ, or -1.
func firstBitDiff(got, want []float64) int {
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			return i
		}
	}
	return -1
}

// TestSplitWork checks the cuts: they start at 0, end at dim, grow, are
// multiples of nr inside, and share a triangle's work about evenly.
func TestSplitWork(t *testing.T) {
	for _, dim := range []int{1, 24, 25, 100, 1164, 2316} {
		for w := 1; w <= maxWorkers; w++ {
			for _, tri := range []bool{false, true} {
				name := fmt.Sprintf("dim%d/w%d/tri%v", dim, w, tri)
				cuts := splitWork(nil, dim, w, tri)
				if cuts[0] != 0 || cuts[len(cuts)-1] != dim || len(cuts) > w+1 {
					t.Fatalf("%s: cuts %v", name, cuts)
				}
				for q := 1; q < len(cuts); q++ {
					if cuts[q] <= cuts[q-1] || (q < len(cuts)-1 && cuts[q]%nr != 0) {
						t.Fatalf("%s: cuts %v", name, cuts)
					}
				}
				if dim >= 1000 && len(cuts) != w+1 {
					t.Errorf("%s: %d blocks, want %d", name, len(cuts)-1, w)
				}
			}
		}
	}
}

// TestDgemmSerial checks that DgemmSerial gives Dgemm's bits where Dgemm
// shares the product (parWork = 1, four processors), with the two values
// of beta and the two layouts of B that the bound propagation uses.
func TestDgemmSerial(t *testing.T) {
	savedWork, savedProcs := parWork, runtime.GOMAXPROCS(0)
	defer func() { parWork = savedWork; runtime.GOMAXPROCS(savedProcs) }()
	parWork = 1
	runtime.GOMAXPROCS(4)
	withKernels(t, func(t *testing.T) {
		const m, n, k = 300, 100, 50
		rnd := rand.New(rand.NewPCG(23, 24))
		a, b, c := randSlice(rnd, m*k), randSlice(rnd, k*n), randSlice(rnd, m*n)
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			ldb := n
			if tB == blas.Trans {
				ldb = k
			}
			for _, beta := range []float64{0, 1} {
				want := append([]float64(nil), c...)
				got := append([]float64(nil), c...)
				Impl{}.Dgemm(blas.NoTrans, tB, m, n, k, 1, a, k, b, ldb, beta, want, n)
				Impl{}.DgemmSerial(blas.NoTrans, tB, m, n, k, 1, a, k, b, ldb, beta, got, n)
				if i := firstBitDiff(got, want); i >= 0 {
					t.Fatalf("%v/beta%v: element %d = %v, want %v (Dgemm)", tB, beta, i, got[i], want[i])
				}
			}
		}
	})
}
