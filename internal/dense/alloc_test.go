package dense

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestNoAllocations checks that the blocked routines take their buffers
// from the pools: after a first call, repeated calls allocate nothing (the
// solver's workspace is allocated once per solve).
func TestNoAllocations(t *testing.T) {
	const n = 150
	rnd := rand.New(rand.NewPCG(19, 20))
	x, y, z := randSlice(rnd, n*n), randSlice(rnd, n*n), randSlice(rnd, n*n)
	s := spd(rnd, n)
	w := make([]float64, n*n)
	impl := Impl{}
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Dgemm", func() { impl.Dgemm(blas.NoTrans, blas.Trans, n, n, n, 1, x, n, y, n, 0, z, n) }},
		{"Dsyrk", func() { impl.Dsyrk(blas.Upper, blas.Trans, n, n, 1, x, n, 0, z, n) }},
		{"Dsymm", func() { impl.Dsymm(blas.Right, blas.Lower, n, n, 1, s, n, x, n, 0, z, n) }},
		{"Dtrsm", func() { copy(w, x); impl.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, n, n, 1, s, n, w, n) }},
		{"Dtrmm", func() { copy(w, x); impl.Dtrmm(blas.Left, blas.Upper, blas.NoTrans, blas.Unit, n, n, 1, s, n, w, n) }},
		{"Dgemv", func() { impl.Dgemv(blas.Trans, n, n, 1, x, n, y[:n], 1, 0, z[:n], 1) }},
		{"Dtrsv", func() { copy(w, x); impl.Dtrsv(blas.Lower, blas.Trans, blas.NonUnit, n, s, n, w[:n], 1) }},
		{"Dsymv", func() { impl.Dsymv(blas.Upper, n, 1, s, n, y[:n], 1, 0, z[:n], 1) }},
		{"Potrf+Potri", func() { copy(w, s); Potrf(n, w, n); Potri(n, w, n) }},
	} {
		if a := testing.AllocsPerRun(20, c.f); a >= 1 {
			t.Errorf("%s: %v allocations per call", c.name, a)
		}
	}
}
