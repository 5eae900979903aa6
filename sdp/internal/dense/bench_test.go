package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	lapack "gonum.org/v1/gonum/lapack/gonum"
)

// Benchmarks report GFlop/s as a custom metric. Run them single-threaded:
//
//	GOMAXPROCS=1 go test -run '^$' -bench . ./sdp/internal/dense
//
// The "gonum" sub-benchmarks time gonum's pure-Go routines for comparison.

var benchSizes = []int{16, 64, 200, 512, 1000, 2000}

func gflops(b *testing.B, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()*1e-9, "GFlop/s")
}

// spd returns a well-conditioned symmetric positive definite n x n matrix.
func spd(rnd *rand.Rand, n int) []float64 {
	a := randSlice(rnd, n*n)
	s := make([]float64, n*n)
	if n == 0 {
		return s
	}
	gonum.Implementation{}.Dgemm(blas.NoTrans, blas.Trans, n, n, n, 1, a, n, a, n, 0, s, n)
	for i := range n {
		s[i*n+i] += float64(n)
	}
	return s
}

func BenchmarkDgemm(b *testing.B) {
	for _, n := range benchSizes {
		rnd := rand.New(rand.NewPCG(1, uint64(n)))
		x, y, z := randSlice(rnd, n*n), randSlice(rnd, n*n), randSlice(rnd, n*n)
		for _, impl := range benchImpls {
			if impl.name == "gonum" && n > 1000 {
				continue
			}
			b.Run(fmt.Sprintf("%s/n=%d", impl.name, n), func(b *testing.B) {
				for b.Loop() {
					impl.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0.5, z, n)
				}
				gflops(b, 2*float64(n)*float64(n)*float64(n))
			})
		}
	}
}

// benchImpls are the implementations compared; gonum is skipped on the
// largest sizes, where it takes seconds.
var benchImpls = []struct {
	name string
	blas.Float64
}{{"dense", Impl{}}, {"gonum", gonum.Implementation{}}}

func BenchmarkDsyrk(b *testing.B) {
	for _, n := range benchSizes {
		rnd := rand.New(rand.NewPCG(2, uint64(n)))
		x, c := randSlice(rnd, n*n), spd(rnd, n)
		for _, impl := range benchImpls {
			if impl.name == "gonum" && n > 1000 {
				continue
			}
			b.Run(fmt.Sprintf("%s/n=%d", impl.name, n), func(b *testing.B) {
				for b.Loop() {
					impl.Dsyrk(blas.Lower, blas.NoTrans, n, n, -1, x, n, 1, c, n)
				}
				gflops(b, float64(n)*float64(n)*float64(n))
			})
		}
	}
}

// BenchmarkDtrsm times the solve of Potrf's panel step, X Lᵀ = B.
func BenchmarkDtrsm(b *testing.B) {
	for _, n := range benchSizes {
		rnd := rand.New(rand.NewPCG(3, uint64(n)))
		l := spd(rnd, n)
		Potrf(n, l, n)
		x := randSlice(rnd, n*n)
		for _, impl := range benchImpls {
			if impl.name == "gonum" && n > 1000 {
				continue
			}
			b.Run(fmt.Sprintf("%s/n=%d", impl.name, n), func(b *testing.B) {
				for b.Loop() {
					impl.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, n, n, 1, l, n, x, n)
				}
				gflops(b, float64(n)*float64(n)*float64(n))
			})
		}
	}
}

func BenchmarkPotrf(b *testing.B) {
	for _, n := range append(benchSizes, 2401) {
		rnd := rand.New(rand.NewPCG(4, uint64(n)))
		a := spd(rnd, n)
		w := make([]float64, n*n)
		for _, impl := range []struct {
			name  string
			potrf func(n int, a []float64, lda int) bool
		}{{"dense", Potrf}, {"gonum", func(n int, a []float64, lda int) bool {
			return lapack.Implementation{}.Dpotrf(blas.Lower, n, a, lda)
		}}} {
			if impl.name == "gonum" && n > 1000 {
				continue
			}
			b.Run(fmt.Sprintf("%s/n=%d", impl.name, n), func(b *testing.B) {
				for b.Loop() { // the copy is O(n^2), the work O(n^3)
					copy(w, a)
					if !impl.potrf(n, w, n) {
						b.Fatal("not positive definite")
					}
				}
				gflops(b, float64(n)*float64(n)*float64(n)/3)
			})
		}
	}
}

func BenchmarkPotri(b *testing.B) {
	for _, n := range benchSizes {
		rnd := rand.New(rand.NewPCG(5, uint64(n)))
		a := spd(rnd, n)
		Potrf(n, a, n)
		w := make([]float64, n*n)
		for _, impl := range []struct {
			name  string
			potri func(n int, a []float64, lda int) bool
		}{{"dense", Potri}, {"gonum", func(n int, a []float64, lda int) bool {
			return lapack.Implementation{}.Dpotri(blas.Lower, n, a, lda)
		}}} {
			if impl.name == "gonum" && n > 1000 {
				continue
			}
			b.Run(fmt.Sprintf("%s/n=%d", impl.name, n), func(b *testing.B) {
				for b.Loop() {
					copy(w, a)
					impl.potri(n, w, n)
				}
				gflops(b, 2*float64(n)*float64(n)*float64(n)/3)
			})
		}
	}
}
