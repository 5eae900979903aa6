package dense

import "gonum.org/v1/gonum/blas"

// Dtrsv solves
//
//	A * x = b    if tA == blas.NoTrans
//	Aᵀ * x = b   otherwise
//
// for the n x n triangular A, x overwriting b, with gonum's conventions.
// With a unit stride and n of some size it substitutes with the AVX-512
// dot product (A x = b: row i of A against the solved part of x) or axpy
// (Aᵀ x = b: row i of A, scaled, out of the unsolved part); everything
// else, argument errors included, goes to gonum.
func (impl Impl) Dtrsv(ul blas.Uplo, tA blas.Transpose, d blas.Diag, n int, a []float64, lda int, x []float64, incX int) {
	if !useAsm || n < smallLevel1 || incX != 1 || !validUplo(ul) || !validTrans(tA) || !validDiag(d) ||
		lda < n || len(x) < n || len(a) < lda*(n-1)+n {
		impl.Implementation.Dtrsv(ul, tA, d, n, a, lda, x, incX)
		return
	}
	x = x[:n]
	nonUnit := d == blas.NonUnit
	switch {
	case !isTrans(tA) && ul == blas.Lower:
		for i := range n {
			x[i] -= vdot(a[i*lda:i*lda+i], x)
			if nonUnit {
				x[i] /= a[i*lda+i]
			}
		}
	case !isTrans(tA):
		for i := n - 1; i >= 0; i-- {
			x[i] -= vdot(a[i*lda+i+1:i*lda+n], x[i+1:])
			if nonUnit {
				x[i] /= a[i*lda+i]
			}
		}
	case ul == blas.Lower: // Aᵀ is upper triangular: backwards
		var w [1]float64
		for i := n - 1; i >= 0; i-- {
			if nonUnit {
				x[i] /= a[i*lda+i]
			}
			if x[i] != 0 {
				w[0] = -x[i]
				axpyRows(w[:], a[i*lda:i*lda+i], lda, x[:i])
			}
		}
	default: // Aᵀ is lower triangular: forwards
		var w [1]float64
		for i := range n {
			if nonUnit {
				x[i] /= a[i*lda+i]
			}
			if x[i] != 0 {
				w[0] = -x[i]
				axpyRows(w[:], a[i*lda+i+1:i*lda+n], lda, x[i+1:])
			}
		}
	}
}
