package sdp

import (
	"gonum.org/v1/gonum/blas"

	"github.com/nnbound/nnbound/internal/dense"
)

// Thin wrappers over the dense kernels, so that the solver names what it
// needs once. Level-3 work and the factorisations go through package
// dense; everything is row-major with the leading dimension given.

var impl dense.Impl

// dot returns x · y (equal lengths).
func dot(x, y []float64) float64 { return impl.Ddot(len(x), x, 1, y, 1) }

// axpy sets y += alpha x (equal lengths).
func axpy(alpha float64, x, y []float64) { impl.Daxpy(len(x), alpha, x, 1, y, 1) }

// gemm sets c = alpha op(a) op(b) + beta c for m x k op(a), k x n op(b).
func gemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int,
	b []float64, ldb int, beta float64, c []float64, ldc int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	if transA {
		ta = blas.Trans
	}
	if transB {
		tb = blas.Trans
	}
	impl.Dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// cholesky factors the lower triangle of the n x n matrix a in place; it
// reports false if a is not numerically positive definite.
func cholesky(n int, a []float64, lda int) bool { return dense.Potrf(n, a, lda) }

// cholInverse replaces the Cholesky factor in the lower triangle of a by
// the lower triangle of the inverse of L L^T.
func cholInverse(n int, a []float64, lda int) bool { return dense.Potri(n, a, lda) }

// solveLower sets x = L^{-1} x (trans false) or L^{-T} x (trans true) for
// the lower triangular n x n matrix L.
func solveLower(trans bool, n int, l []float64, lda int, x []float64) {
	t := blas.NoTrans
	if trans {
		t = blas.Trans
	}
	impl.Dtrsv(blas.Lower, t, blas.NonUnit, n, l, lda, x, 1)
}

// symv sets y = A x for the symmetric n x n matrix A, reading its lower
// triangle.
func symv(n int, a []float64, lda int, x, y []float64) {
	impl.Dsymv(blas.Lower, n, 1, a, lda, x, 1, 0, y, 1)
}
