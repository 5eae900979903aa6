package dense

import "gonum.org/v1/gonum/blas"

// The argument checks below mirror gonum's blas/gonum package check for
// check, in the same order and with the same panic messages, so that Impl
// fails exactly as gonum does on bad arguments. Each returns "" when the
// arguments are valid and the routine should go on.

const (
	errMLT0      = "blas: m < 0"
	errNLT0      = "blas: n < 0"
	errKLT0      = "blas: k < 0"
	errZeroIncX  = "blas: zero x index increment"
	errZeroIncY  = "blas: zero y index increment"
	errUplo      = "blas: illegal triangle"
	errTranspose = "blas: illegal transpose"
	errDiag      = "blas: illegal diagonal"
	errSide      = "blas: illegal side"
	errLdA       = "blas: bad leading dimension of A"
	errLdB       = "blas: bad leading dimension of B"
	errLdC       = "blas: bad leading dimension of C"
	errShortX    = "blas: insufficient length of x"
	errShortY    = "blas: insufficient length of y"
	errShortA    = "blas: insufficient length of a"
	errShortB    = "blas: insufficient length of b"
	errShortC    = "blas: insufficient length of c"
)

func validTrans(t blas.Transpose) bool {
	return t == blas.NoTrans || t == blas.Trans || t == blas.ConjTrans
}

func validUplo(u blas.Uplo) bool { return u == blas.Lower || u == blas.Upper }

func validSide(s blas.Side) bool { return s == blas.Left || s == blas.Right }

func validDiag(d blas.Diag) bool { return d == blas.NonUnit || d == blas.Unit }

func isTrans(t blas.Transpose) bool { return t == blas.Trans || t == blas.ConjTrans }

// checkGemm checks the arguments of Dgemm; empty reports m == 0 or n == 0.
func checkGemm(tA, tB blas.Transpose, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) (msg string, empty bool) {
	switch {
	case !validTrans(tA), !validTrans(tB):
		return errTranspose, false
	case m < 0:
		return errMLT0, false
	case n < 0:
		return errNLT0, false
	case k < 0:
		return errKLT0, false
	}
	aRows, aCols := m, k
	if isTrans(tA) {
		aRows, aCols = k, m
	}
	bRows, bCols := k, n
	if isTrans(tB) {
		bRows, bCols = n, k
	}
	switch {
	case lda < max(1, aCols):
		return errLdA, false
	case ldb < max(1, bCols):
		return errLdB, false
	case ldc < max(1, n):
		return errLdC, false
	case m == 0 || n == 0:
		return "", true
	case len(a) < (aRows-1)*lda+aCols:
		return errShortA, false
	case len(b) < (bRows-1)*ldb+bCols:
		return errShortB, false
	case len(c) < (m-1)*ldc+n:
		return errShortC, false
	}
	return "", false
}

// checkSyrk checks the arguments of Dsyrk (b == nil) and Dsyr2k.
func checkSyrk(ul blas.Uplo, tA blas.Transpose, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, twoK bool) (msg string, empty bool) {
	switch {
	case !validUplo(ul):
		return errUplo, false
	case !validTrans(tA):
		return errTranspose, false
	case n < 0:
		return errNLT0, false
	case k < 0:
		return errKLT0, false
	}
	rows, cols := n, k
	if isTrans(tA) {
		rows, cols = k, n
	}
	switch {
	case lda < max(1, cols):
		return errLdA, false
	case twoK && ldb < max(1, cols):
		return errLdB, false
	case ldc < max(1, n):
		return errLdC, false
	case n == 0:
		return "", true
	case len(a) < lda*(rows-1)+cols:
		return errShortA, false
	case twoK && len(b) < ldb*(rows-1)+cols:
		return errShortB, false
	case len(c) < ldc*(n-1)+n:
		return errShortC, false
	}
	return "", false
}

// checkTri checks the arguments of Dtrsm and Dtrmm.
func checkTri(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, a []float64, lda int, b []float64, ldb int) (msg string, empty bool) {
	switch {
	case !validSide(s):
		return errSide, false
	case !validUplo(ul):
		return errUplo, false
	case !validTrans(tA):
		return errTranspose, false
	case !validDiag(d):
		return errDiag, false
	case m < 0:
		return errMLT0, false
	case n < 0:
		return errNLT0, false
	}
	k := n
	if s == blas.Left {
		k = m
	}
	switch {
	case lda < max(1, k):
		return errLdA, false
	case ldb < max(1, n):
		return errLdB, false
	case m == 0 || n == 0:
		return "", true
	case len(a) < lda*(k-1)+k:
		return errShortA, false
	case len(b) < ldb*(m-1)+n:
		return errShortB, false
	}
	return "", false
}

// checkSymm checks the arguments of Dsymm.
func checkSymm(s blas.Side, ul blas.Uplo, m, n int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) (msg string, empty bool) {
	switch {
	case !validSide(s):
		return errSide, false
	case !validUplo(ul):
		return errUplo, false
	case m < 0:
		return errMLT0, false
	case n < 0:
		return errNLT0, false
	}
	k := n
	if s == blas.Left {
		k = m
	}
	switch {
	case lda < max(1, k):
		return errLdA, false
	case ldb < max(1, n):
		return errLdB, false
	case ldc < max(1, n):
		return errLdC, false
	case m == 0 || n == 0:
		return "", true
	case len(a) < lda*(k-1)+k:
		return errShortA, false
	case len(b) < ldb*(m-1)+n:
		return errShortB, false
	case len(c) < ldc*(m-1)+n:
		return errShortC, false
	}
	return "", false
}

// checkVec checks a vector of length n with increment inc.
func shortVec(n, inc, length int) bool {
	return (inc > 0 && (n-1)*inc >= length) || (inc < 0 && (1-n)*inc >= length)
}
