package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	lapack "gonum.org/v1/gonum/lapack/gonum"
)

// Benchmarks report GFlop/s as a custom metric, computed from the CPU time
// of the process where the system provides it (Linux), else from wall time:
// on a shared machine that counts our work, not the time other processes
// hold the core. Run them single-threaded:
//
//	GOMAXPROCS=1 go test -run '^$' -bench . ./internal/dense
//
// Each routine has sub-benchmarks per implementation ("dense" is ours,
// "gonum" gonum's pure-Go one, skipped above n = 1000 where it takes
// seconds) and per size n: all matrices are n x n.

var benchSizes = []int{16, 64, 200, 512, 1000, 2000}

// benchData holds the operands of one size.
type benchData struct {
	n       int
	x, y, z []float64 // general, uniform in [-1, 1)
	s, l    []float64 // symmetric positive definite, and its Cholesky factor
	w       []float64 // scratch: in-place routines copy their input here
}

func newBenchData(n int) *benchData {
	rnd := rand.New(rand.NewPCG(1, uint64(n)))
	d := &benchData{n: n, x: randSlice(rnd, n*n), y: randSlice(rnd, n*n), z: randSlice(rnd, n*n)}
	d.s = spd(rnd, n)
	d.l = append([]float64(nil), d.s...)
	Potrf(n, d.l, n)
	d.w = make([]float64, n*n)
	return d
}

// spd returns a well-conditioned symmetric positive definite n x n matrix.
func spd(rnd *rand.Rand, n int) []float64 {
	a := randSlice(rnd, n*n)
	s := make([]float64, n*n)
	if n == 0 {
		return s
	}
	Impl{}.Dgemm(blas.NoTrans, blas.Trans, n, n, n, 1, a, n, a, n, 0, s, n)
	for i := range n {
		s[i*n+i] += float64(n)
	}
	return s
}

// benchRoutine runs one routine for both implementations and every size;
// flops is its operation count for order n.
func benchRoutine(b *testing.B, sizes []int, flops func(n float64) float64, run func(impl blas.Float64, d *benchData)) {
	for _, n := range sizes {
		d := newBenchData(n)
		for _, impl := range []struct {
			name string
			blas.Float64
		}{{"dense", Impl{}}, {"gonum", gonum.Implementation{}}} {
			if impl.name == "gonum" && n > 1000 {
				continue
			}
			b.Run(fmt.Sprintf("%s/n=%d", impl.name, n), func(b *testing.B) {
				measure(b, flops(float64(n)), func() { run(impl.Float64, d) })
			})
		}
	}
}

// measure runs f in a b.Loop and reports its rate for the given number of
// floating-point operations per call.
func measure(b *testing.B, flops float64, f func()) {
	t0, ok := cpuTime()
	for b.Loop() {
		f()
	}
	elapsed := b.Elapsed()
	if t1, ok1 := cpuTime(); ok && ok1 {
		elapsed = t1 - t0
	}
	b.ReportMetric(flops*float64(b.N)/elapsed.Seconds()*1e-9, "GFlop/s")
}

func cube(n float64) float64 { return n * n * n }

func BenchmarkDgemm(b *testing.B) {
	benchRoutine(b, benchSizes, func(n float64) float64 { return 2 * cube(n) }, func(impl blas.Float64, d *benchData) {
		impl.Dgemm(blas.NoTrans, blas.NoTrans, d.n, d.n, d.n, 1, d.x, d.n, d.y, d.n, 0.5, d.z, d.n)
	})
}

func BenchmarkDsyrk(b *testing.B) {
	benchRoutine(b, benchSizes, cube, func(impl blas.Float64, d *benchData) {
		impl.Dsyrk(blas.Lower, blas.NoTrans, d.n, d.n, -1, d.x, d.n, 0.5, d.w, d.n)
	})
}

func BenchmarkDsymm(b *testing.B) {
	benchRoutine(b, benchSizes, func(n float64) float64 { return 2 * cube(n) }, func(impl blas.Float64, d *benchData) {
		impl.Dsymm(blas.Left, blas.Lower, d.n, d.n, 1, d.s, d.n, d.x, d.n, 0, d.w, d.n)
	})
}

// BenchmarkDtrsm times the solve of Potrf's panel step, X Lᵀ = B.
func BenchmarkDtrsm(b *testing.B) {
	benchRoutine(b, benchSizes, cube, func(impl blas.Float64, d *benchData) {
		copy(d.w, d.x) // O(n^2) against O(n^3)
		impl.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, d.n, d.n, 1, d.l, d.n, d.w, d.n)
	})
}

// BenchmarkDtrmm times Lᵀ B, the step of Potri's second half.
func BenchmarkDtrmm(b *testing.B) {
	benchRoutine(b, benchSizes, cube, func(impl blas.Float64, d *benchData) {
		copy(d.w, d.x)
		impl.Dtrmm(blas.Left, blas.Lower, blas.Trans, blas.NonUnit, d.n, d.n, 1, d.l, d.n, d.w, d.n)
	})
}

func BenchmarkDgemv(b *testing.B) {
	benchRoutine(b, benchSizes, func(n float64) float64 { return 2 * n * n }, func(impl blas.Float64, d *benchData) {
		impl.Dgemv(blas.NoTrans, d.n, d.n, 1, d.x, d.n, d.y[:d.n], 1, 0, d.z[:d.n], 1)
	})
}

func BenchmarkPotrf(b *testing.B) {
	benchRoutine(b, append(benchSizes, 2401), func(n float64) float64 { return cube(n) / 3 }, func(impl blas.Float64, d *benchData) {
		copy(d.w, d.s)
		if _, ok := impl.(Impl); ok {
			Potrf(d.n, d.w, d.n)
			return
		}
		lapack.Implementation{}.Dpotrf(blas.Lower, d.n, d.w, d.n)
	})
}

func BenchmarkPotri(b *testing.B) {
	benchRoutine(b, benchSizes, func(n float64) float64 { return 2 * cube(n) / 3 }, func(impl blas.Float64, d *benchData) {
		copy(d.w, d.l)
		if _, ok := impl.(Impl); ok {
			Potri(d.n, d.w, d.n)
			return
		}
		lapack.Implementation{}.Dpotri(blas.Lower, d.n, d.w, d.n)
	})
}

// BenchmarkDdot times the solver's most frequent Level-1 call on vectors
// of n*n elements.
func BenchmarkDdot(b *testing.B) {
	benchRoutine(b, benchSizes[:4], func(n float64) float64 { return 2 * n * n }, func(impl blas.Float64, d *benchData) {
		_ = impl.Ddot(d.n*d.n, d.x, 1, d.y, 1)
	})
}

// BenchmarkDtrsv times Lᵀ x = b, a step of the solver's Lanczos iteration.
func BenchmarkDtrsv(b *testing.B) {
	benchRoutine(b, benchSizes[1:5], func(n float64) float64 { return n * n }, func(impl blas.Float64, d *benchData) {
		copy(d.w[:d.n], d.x)
		impl.Dtrsv(blas.Lower, blas.Trans, blas.NonUnit, d.n, d.l, d.n, d.w[:d.n], 1)
	})
}

// BenchmarkDgemmShapes times the rectangular products of the bound
// propagation's back-substitution (package bounds): an R x k coefficient
// matrix times a k x n weight matrix, or times its transpose, for the
// layer widths of ACAS Xu (50 to 300 rows, 50 to 100 columns; 5 inputs
// and outputs; a few rows where few neurons are unstable). Shapes are
// m x n x k. "packed" is DgemmPacked with B packed beforehand, as the
// bound propagation multiplies by a layer's weights.
func BenchmarkDgemmShapes(b *testing.B) {
	shapes := [][3]int{
		{50, 50, 50}, {100, 100, 100}, {200, 100, 100}, {300, 100, 50}, {300, 50, 100},
		{300, 5, 50}, {300, 50, 5}, {300, 10, 100}, {300, 100, 10},
		{2, 100, 100}, {4, 100, 100}, {8, 100, 100}, {16, 100, 100}, {32, 100, 100}, {4, 50, 50}, {16, 50, 50},
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		a, bb, c := randSlice(rnd, m*k), randSlice(rnd, k*n), randSlice(rnd, m*n)
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			ldb := n
			if tB == blas.Trans {
				ldb = k
			}
			for _, impl := range []struct {
				name string
				blas.Float64
			}{{"dense", Impl{}}, {"gonum", gonum.Implementation{}}} {
				b.Run(fmt.Sprintf("%s/%dx%dx%d/%c", impl.name, m, n, k, tB), func(b *testing.B) {
					measure(b, 2*float64(m*n*k), func() {
						impl.Dgemm(blas.NoTrans, tB, m, n, k, 1, a, k, bb, ldb, 0, c, n)
					})
				})
			}
			pb := NewPackedB(tB, k, n, bb, ldb)
			b.Run(fmt.Sprintf("packed/%dx%dx%d/%c", m, n, k, tB), func(b *testing.B) {
				measure(b, 2*float64(m*n*k), func() {
					Impl{}.DgemmPacked(m, 1, a, k, pb, 0, c, n)
				})
			})
		}
	}
}
