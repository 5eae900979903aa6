// Package dense holds the dense linear algebra kernels of the SDP solver:
// the Level-3 BLAS routines and Cholesky factorisation that dominate an
// interior-point iteration. Matrices are row-major, as in gonum.
//
// Impl satisfies gonum's blas.Float64; the routines that matter for speed
// are overridden, the rest come from gonum's pure-Go implementation.
package dense

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	lapack "gonum.org/v1/gonum/lapack/gonum"
)

// Impl is the BLAS implementation the solver uses.
type Impl struct {
	gonum.Implementation
}

var _ blas.Float64 = Impl{}

// Potrf computes the Cholesky factorisation A = L L^T of the symmetric
// positive definite n x n matrix whose lower triangle is stored in a, in
// place (the strict upper triangle is not referenced). It returns false if
// A is not numerically positive definite.
func Potrf(n int, a []float64, lda int) bool {
	return lapack.Implementation{}.Dpotrf(blas.Lower, n, a, lda)
}

// Potri replaces the Cholesky factor L (lower triangle of a, as left by
// Potrf) with the lower triangle of (L L^T)^{-1}. It returns false if L is
// singular.
func Potri(n int, a []float64, lda int) bool {
	return lapack.Implementation{}.Dpotri(blas.Lower, n, a, lda)
}
