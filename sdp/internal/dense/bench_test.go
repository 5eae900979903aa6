package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
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
		for _, impl := range []struct {
			name string
			blas.Float64
		}{{"dense", Impl{}}, {"gonum", gonum.Implementation{}}} {
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
