package dense

import "gonum.org/v1/gonum/blas"

// The argument checks below mirror gonum's blas/gonum package check for
// check, in the same order and with the same panic messages, so that Impl
// fails exactly as gonum does on bad arguments. Each panics on a bad
// argument and otherwise reports whether the result is empty (a zero
// dimension), in which case the routine returns at once.

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
func checkGemm(tA, tB blas.Transpose, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) (empty bool) {
	switch {
	case ldc < max(1, n):
		panic(errLdC)
	case checkFactors(tA, tB, m, n, k, a, lda, b, ldb):
		return true
	case len(c) < (m-1)*ldc+n:
		panic(errShortC)
	}
	return false
}

// checkFactors checks the arguments of Dgemm but C; empty reports m == 0
// or n == 0.
func checkFactors(tA, tB blas.Transpose, m, n, k int, a []float64, lda int, b []float64, ldb int) (empty bool) {
	switch {
	case !validTrans(tA), !validTrans(tB):
		panic(errTranspose)
	case m < 0:
		panic(errMLT0)
	case n < 0:
		panic(errNLT0)
	case k < 0:
		panic(errKLT0)
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
		panic(errLdA)
	case ldb < max(1, bCols):
		panic(errLdB)
	case m == 0 || n == 0:
		return true
	case len(a) < (aRows-1)*lda+aCols:
		panic(errShortA)
	case len(b) < (bRows-1)*ldb+bCols:
		panic(errShortB)
	}
	return false
}

// checkSyrk checks the arguments of Dsyrk (twoK false, b unused) and
// Dsyr2k.
func checkSyrk(ul blas.Uplo, tA blas.Transpose, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, twoK bool) (empty bool) {
	switch {
	case !validUplo(ul):
		panic(errUplo)
	case !validTrans(tA):
		panic(errTranspose)
	case n < 0:
		panic(errNLT0)
	case k < 0:
		panic(errKLT0)
	}
	rows, cols := n, k
	if isTrans(tA) {
		rows, cols = k, n
	}
	switch {
	case lda < max(1, cols):
		panic(errLdA)
	case twoK && ldb < max(1, cols):
		panic(errLdB)
	case ldc < max(1, n):
		panic(errLdC)
	case n == 0:
		return true
	case len(a) < lda*(rows-1)+cols:
		panic(errShortA)
	case twoK && len(b) < ldb*(rows-1)+cols:
		panic(errShortB)
	case len(c) < ldc*(n-1)+n:
		panic(errShortC)
	}
	return false
}

// checkTri checks the arguments of Dtrsm and Dtrmm.
func checkTri(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, a []float64, lda int, b []float64, ldb int) (empty bool) {
	switch {
	case !validSide(s):
		panic(errSide)
	case !validUplo(ul):
		panic(errUplo)
	case !validTrans(tA):
		panic(errTranspose)
	case !validDiag(d):
		panic(errDiag)
	case m < 0:
		panic(errMLT0)
	case n < 0:
		panic(errNLT0)
	}
	k := n
	if s == blas.Left {
		k = m
	}
	switch {
	case lda < max(1, k):
		panic(errLdA)
	case ldb < max(1, n):
		panic(errLdB)
	case m == 0 || n == 0:
		return true
	case len(a) < lda*(k-1)+k:
		panic(errShortA)
	case len(b) < ldb*(m-1)+n:
		panic(errShortB)
	}
	return false
}

// checkSymm checks the arguments of Dsymm.
func checkSymm(s blas.Side, ul blas.Uplo, m, n int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) (empty bool) {
	switch {
	case !validSide(s):
		panic(errSide)
	case !validUplo(ul):
		panic(errUplo)
	case m < 0:
		panic(errMLT0)
	case n < 0:
		panic(errNLT0)
	}
	k := n
	if s == blas.Left {
		k = m
	}
	switch {
	case lda < max(1, k):
		panic(errLdA)
	case ldb < max(1, n):
		panic(errLdB)
	case ldc < max(1, n):
		panic(errLdC)
	case m == 0 || n == 0:
		return true
	case len(a) < lda*(k-1)+k:
		panic(errShortA)
	case len(b) < ldb*(m-1)+n:
		panic(errShortB)
	case len(c) < ldc*(m-1)+n:
		panic(errShortC)
	}
	return false
}

// shortVec reports whether a slice of the given length is too short for a
// vector of n elements with increment inc.
func shortVec(n, inc, length int) bool {
	return (inc > 0 && (n-1)*inc >= length) || (inc < 0 && (1-n)*inc >= length)
}

// checkGemv checks the arguments of Dgemv.
func checkGemv(tA blas.Transpose, m, n int, a []float64, lda int, x []float64, incX int, y []float64, incY int) (empty bool) {
	switch {
	case !validTrans(tA):
		panic(errTranspose)
	case m < 0:
		panic(errMLT0)
	case n < 0:
		panic(errNLT0)
	case lda < max(1, n):
		panic(errLdA)
	case incX == 0:
		panic(errZeroIncX)
	case incY == 0:
		panic(errZeroIncY)
	}
	lenX, lenY := n, m
	if isTrans(tA) {
		lenX, lenY = m, n
	}
	switch {
	case m == 0 || n == 0:
		return true
	case shortVec(lenX, incX, len(x)):
		panic(errShortX)
	case shortVec(lenY, incY, len(y)):
		panic(errShortY)
	case len(a) < lda*(m-1)+n:
		panic(errShortA)
	}
	return false
}

// checkSymv checks the arguments of Dsymv.
func checkSymv(ul blas.Uplo, n int, a []float64, lda int, x []float64, incX int, y []float64, incY int) (empty bool) {
	switch {
	case !validUplo(ul):
		panic(errUplo)
	case n < 0:
		panic(errNLT0)
	case lda < max(1, n):
		panic(errLdA)
	case incX == 0:
		panic(errZeroIncX)
	case incY == 0:
		panic(errZeroIncY)
	}
	switch {
	case n == 0:
		return true
	case shortVec(n, incX, len(x)):
		panic(errShortX)
	case shortVec(n, incY, len(y)):
		panic(errShortY)
	case len(a) < lda*(n-1)+n:
		panic(errShortA)
	}
	return false
}
