package dense

import "gonum.org/v1/gonum/blas"

// Dsyrk computes the symmetric rank-k update
//
//	C = alpha * A * Aᵀ + beta * C   if tA == blas.NoTrans (A is n x k)
//	C = alpha * Aᵀ * A + beta * C   otherwise (A is k x n)
//
// on the triangle ul of the n x n matrix C, with gonum's conventions.
func (impl Impl) Dsyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if checkSyrk(ul, tA, n, k, a, lda, nil, 0, c, ldc, false) {
		return
	}
	if n*n*k < smallGemm {
		if beta == 0 {
			// gonum reads C when tA is a transpose and ul is Lower.
			scale(n, n, 0, c, ldc, partOf(ul))
		}
		impl.Implementation.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	syrk(ul, isTrans(tA), n, k, alpha, a, lda, beta, c, ldc)
}

// syrk is Dsyrk without checks.
func syrk(ul blas.Uplo, trans bool, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	opA := operand{data: a, ld: lda, trans: trans}
	opAT := operand{data: a, ld: lda, trans: !trans}
	gemm(n, n, k, alpha, &opA, &opAT, beta, c, ldc, partOf(ul))
}

// Dsyr2k computes the symmetric rank-2k update
//
//	C = alpha * A * Bᵀ + alpha * B * Aᵀ + beta * C   if tA == blas.NoTrans
//	C = alpha * Aᵀ * B + alpha * Bᵀ * A + beta * C   otherwise
//
// on the triangle ul of the n x n matrix C, with gonum's conventions.
func (impl Impl) Dsyr2k(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if checkSyrk(ul, tA, n, k, a, lda, b, ldb, c, ldc, true) {
		return
	}
	if n*n*k < smallGemm {
		impl.Implementation.Dsyr2k(ul, tA, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	trans := isTrans(tA)
	opA := operand{data: a, ld: lda, trans: trans}
	opAT := operand{data: a, ld: lda, trans: !trans}
	opB := operand{data: b, ld: ldb, trans: trans}
	opBT := operand{data: b, ld: ldb, trans: !trans}
	pt := partOf(ul)
	gemm(n, n, k, alpha, &opA, &opBT, beta, c, ldc, pt)
	if k > 0 && alpha != 0 {
		gemm(n, n, k, alpha, &opB, &opAT, 1, c, ldc, pt)
	}
}

func partOf(ul blas.Uplo) part {
	if ul == blas.Lower {
		return lower
	}
	return upper
}
