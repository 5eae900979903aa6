package dense

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	lapack "gonum.org/v1/gonum/lapack/gonum"
)

// panicOf returns what f panics with, or nil.
func panicOf(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// TestBadArguments checks that every overridden routine panics exactly as
// gonum's does on bad arguments, and accepts what gonum accepts.
func TestBadArguments(t *testing.T) {
	s := make([]float64, 100)
	short := make([]float64, 3)
	const (
		N, T, L, U = blas.NoTrans, blas.Trans, blas.Lower, blas.Upper
		left       = blas.Left
		right      = blas.Right
		nu         = blas.NonUnit
	)
	cases := []struct {
		name string
		call func(b blas.Float64)
	}{
		{"gemm/badtrans", func(b blas.Float64) { b.Dgemm('x', N, 2, 2, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{"gemm/badtransB", func(b blas.Float64) { b.Dgemm(N, 'x', 2, 2, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{"gemm/m<0", func(b blas.Float64) { b.Dgemm(N, N, -1, 2, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{"gemm/n<0", func(b blas.Float64) { b.Dgemm(N, N, 2, -1, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{"gemm/k<0", func(b blas.Float64) { b.Dgemm(N, N, 2, 2, -1, 1, s, 2, s, 2, 0, s, 2) }},
		{"gemm/lda", func(b blas.Float64) { b.Dgemm(N, N, 2, 3, 4, 1, s, 3, s, 3, 0, s, 3) }},
		{"gemm/ldaT", func(b blas.Float64) { b.Dgemm(T, N, 5, 3, 4, 1, s, 4, s, 3, 0, s, 3) }},
		{"gemm/ldb", func(b blas.Float64) { b.Dgemm(N, N, 2, 3, 4, 1, s, 4, s, 2, 0, s, 3) }},
		{"gemm/ldbT", func(b blas.Float64) { b.Dgemm(N, T, 2, 3, 4, 1, s, 4, s, 3, 0, s, 3) }},
		{"gemm/ldc", func(b blas.Float64) { b.Dgemm(N, N, 2, 3, 4, 1, s, 4, s, 3, 0, s, 2) }},
		{"gemm/shortA", func(b blas.Float64) { b.Dgemm(N, N, 2, 3, 4, 1, short, 4, s, 3, 0, s, 3) }},
		{"gemm/shortB", func(b blas.Float64) { b.Dgemm(N, N, 2, 3, 4, 1, s, 4, short, 3, 0, s, 3) }},
		{"gemm/shortC", func(b blas.Float64) { b.Dgemm(N, N, 2, 3, 4, 1, s, 4, s, 3, 0, short, 3) }},
		{"gemm/empty", func(b blas.Float64) { b.Dgemm(N, N, 0, 3, 4, 1, nil, 4, nil, 3, 0, nil, 3) }},
		{"gemm/k0", func(b blas.Float64) { b.Dgemm(N, N, 2, 3, 0, 1, nil, 1, nil, 3, 0, s, 3) }},
		{"syrk/uplo", func(b blas.Float64) { b.Dsyrk('x', N, 2, 2, 1, s, 2, 0, s, 2) }},
		{"syrk/trans", func(b blas.Float64) { b.Dsyrk(L, 'x', 2, 2, 1, s, 2, 0, s, 2) }},
		{"syrk/n<0", func(b blas.Float64) { b.Dsyrk(L, N, -1, 2, 1, s, 2, 0, s, 2) }},
		{"syrk/k<0", func(b blas.Float64) { b.Dsyrk(L, N, 2, -1, 1, s, 2, 0, s, 2) }},
		{"syrk/lda", func(b blas.Float64) { b.Dsyrk(L, N, 2, 3, 1, s, 2, 0, s, 2) }},
		{"syrk/ldc", func(b blas.Float64) { b.Dsyrk(L, T, 3, 2, 1, s, 3, 0, s, 2) }},
		{"syrk/shortA", func(b blas.Float64) { b.Dsyrk(L, N, 3, 2, 1, short, 2, 0, s, 3) }},
		{"syrk/shortC", func(b blas.Float64) { b.Dsyrk(L, N, 3, 2, 1, s, 2, 0, short, 3) }},
		{"syr2k/ldb", func(b blas.Float64) { b.Dsyr2k(U, N, 2, 3, 1, s, 3, s, 2, 0, s, 2) }},
		{"syr2k/shortB", func(b blas.Float64) { b.Dsyr2k(U, N, 3, 2, 1, s, 2, short, 2, 0, s, 3) }},
		{"trsm/side", func(b blas.Float64) { b.Dtrsm('x', L, N, nu, 2, 2, 1, s, 2, s, 2) }},
		{"trsm/uplo", func(b blas.Float64) { b.Dtrsm(left, 'x', N, nu, 2, 2, 1, s, 2, s, 2) }},
		{"trsm/trans", func(b blas.Float64) { b.Dtrsm(left, L, 'x', nu, 2, 2, 1, s, 2, s, 2) }},
		{"trsm/diag", func(b blas.Float64) { b.Dtrsm(left, L, N, 'x', 2, 2, 1, s, 2, s, 2) }},
		{"trsm/m<0", func(b blas.Float64) { b.Dtrsm(left, L, N, nu, -1, 2, 1, s, 2, s, 2) }},
		{"trsm/n<0", func(b blas.Float64) { b.Dtrsm(left, L, N, nu, 2, -1, 1, s, 2, s, 2) }},
		{"trsm/lda", func(b blas.Float64) { b.Dtrsm(right, L, N, nu, 2, 3, 1, s, 2, s, 3) }},
		{"trsm/ldb", func(b blas.Float64) { b.Dtrsm(left, L, N, nu, 2, 3, 1, s, 2, s, 2) }},
		{"trsm/shortA", func(b blas.Float64) { b.Dtrsm(left, L, N, nu, 3, 3, 1, short, 3, s, 3) }},
		{"trsm/shortB", func(b blas.Float64) { b.Dtrsm(left, L, N, nu, 3, 3, 1, s, 3, short, 3) }},
		{"trmm/diag", func(b blas.Float64) { b.Dtrmm(left, L, N, 'x', 2, 2, 1, s, 2, s, 2) }},
		{"trmm/shortB", func(b blas.Float64) { b.Dtrmm(right, U, T, nu, 3, 3, 1, s, 3, short, 3) }},
		{"symm/side", func(b blas.Float64) { b.Dsymm('x', L, 2, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{"symm/uplo", func(b blas.Float64) { b.Dsymm(left, 'x', 2, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{"symm/lda", func(b blas.Float64) { b.Dsymm(left, L, 3, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{"symm/ldc", func(b blas.Float64) { b.Dsymm(right, L, 3, 2, 1, s, 2, s, 2, 0, s, 1) }},
		{"symm/shortC", func(b blas.Float64) { b.Dsymm(left, L, 3, 3, 1, s, 3, s, 3, 0, short, 3) }},
		{"gemv/trans", func(b blas.Float64) { b.Dgemv('x', 2, 2, 1, s, 2, s, 1, 0, s, 1) }},
		{"gemv/incX", func(b blas.Float64) { b.Dgemv(N, 2, 2, 1, s, 2, s, 0, 0, s, 1) }},
		{"gemv/incY", func(b blas.Float64) { b.Dgemv(N, 2, 2, 1, s, 2, s, 1, 0, s, 0) }},
		{"gemv/lda", func(b blas.Float64) { b.Dgemv(N, 2, 3, 1, s, 2, s, 1, 0, s, 1) }},
		{"gemv/shortX", func(b blas.Float64) { b.Dgemv(T, 4, 2, 1, s, 2, short, 1, 0, s, 1) }},
		{"gemv/shortY", func(b blas.Float64) { b.Dgemv(N, 4, 2, 1, s, 2, s, 1, 0, short, 1) }},
		{"gemv/shortA", func(b blas.Float64) { b.Dgemv(N, 4, 2, 1, short, 2, s, 1, 0, s, 1) }},
		{"symv/uplo", func(b blas.Float64) { b.Dsymv('x', 2, 1, s, 2, s, 1, 0, s, 1) }},
		{"symv/n<0", func(b blas.Float64) { b.Dsymv(L, -2, 1, s, 2, s, 1, 0, s, 1) }},
		{"symv/shortX", func(b blas.Float64) { b.Dsymv(L, 4, 1, s, 4, short, 1, 0, s, 1) }},
		{"trsv/uplo", func(b blas.Float64) { b.Dtrsv('x', N, nu, 40, s, 40, s, 1) }},
		{"trsv/lda", func(b blas.Float64) { b.Dtrsv(L, N, nu, 40, s, 39, s, 1) }},
		{"trsv/shortA", func(b blas.Float64) { b.Dtrsv(L, T, nu, 40, s, 40, s, 1) }},
		{"dot/incX", func(b blas.Float64) { _ = b.Ddot(40, s, 0, s, 1) }},
		{"dot/n<0", func(b blas.Float64) { _ = b.Ddot(-1, s, 1, s, 1) }},
		{"dot/shortY", func(b blas.Float64) { _ = b.Ddot(40, s, 1, short, 1) }},
		{"axpy/incY", func(b blas.Float64) { b.Daxpy(40, 2, s, 1, s, 0) }},
		{"axpy/shortX", func(b blas.Float64) { b.Daxpy(40, 2, short, 1, s, 1) }},
	}
	for _, c := range cases {
		got := panicOf(func() { c.call(Impl{}) })
		want := panicOf(func() { c.call(gonum.Implementation{}) })
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: panic %v, want %v", c.name, got, want)
		}
	}
}

func TestCholBadArguments(t *testing.T) {
	s := make([]float64, 20)
	for _, c := range []struct {
		name   string
		n, lda int
		a      []float64
	}{{"n<0", -1, 1, s}, {"lda", 3, 2, s}, {"short", 4, 4, s[:5]}} {
		got := panicOf(func() { Potrf(c.n, c.a, c.lda) })
		want := panicOf(func() { lapack.Implementation{}.Dpotrf(blas.Lower, c.n, c.a, c.lda) })
		if fmt.Sprint(got) != fmt.Sprint(want) || got == nil {
			t.Errorf("Potrf %s: panic %v, want %v", c.name, got, want)
		}
		got = panicOf(func() { Potri(c.n, c.a, c.lda) })
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Potri %s: panic %v, want %v", c.name, got, want)
		}
	}
}
