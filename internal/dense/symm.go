package dense

import "gonum.org/v1/gonum/blas"

// Dsymm computes
//
//	C = alpha * A * B + beta * C   if s == blas.Left  (A is m x m)
//	C = alpha * B * A + beta * C   if s == blas.Right (A is n x n)
//
// where A is symmetric with only its triangle ul read, with gonum's
// conventions. The packing of A reflects the stored triangle, so the
// product is one GEMM.
func (impl Impl) Dsymm(s blas.Side, ul blas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if checkSymm(s, ul, m, n, a, lda, b, ldb, c, ldc) {
		return
	}
	k := m
	if s == blas.Right {
		k = n
	}
	if m*n*k < smallGemm {
		impl.Implementation.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	sym := operand{data: a, ld: lda, shape: symUpper}
	if ul == blas.Lower {
		sym.shape = symLower
	}
	opB := operand{data: b, ld: ldb}
	if s == blas.Left {
		gemm(m, n, m, alpha, &sym, &opB, beta, c, ldc, full)
		return
	}
	gemm(m, n, n, alpha, &opB, &sym, beta, c, ldc, full)
}
