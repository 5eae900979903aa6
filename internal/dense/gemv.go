package dense

import "gonum.org/v1/gonum/blas"

// smallGemv is the size m*n under which Dgemv and Dsymv call gonum.
const smallGemv = 32 * 32

// Dgemv computes
//
//	y = alpha * A * x + beta * y    if tA == blas.NoTrans
//	y = alpha * Aᵀ * x + beta * y   otherwise
//
// for the m x n matrix A, with gonum's conventions. Unit-stride vectors
// take the fast path; other strides go to gonum.
func (impl Impl) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if checkGemv(tA, m, n, a, lda, x, incX, y, incY) {
		return
	}
	lenX, lenY := n, m
	if isTrans(tA) {
		lenX, lenY = m, n
	}
	if incX != 1 || incY != 1 || m*n < smallGemv || alpha == 0 {
		impl.Implementation.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	x, y = x[:lenX], y[:lenY]
	if isTrans(tA) {
		// y = beta*y + Aᵀ(alpha*x): the rows of A weighted into y.
		scaleVec(beta, y)
		p := getBuf(&poolTmp, m)
		defer poolTmp.Put(p)
		w := *p
		for i, v := range x {
			w[i] = alpha * v
		}
		axpyRows(w, a, lda, y)
		return
	}
	var d [4]float64
	for i := 0; i < m; i += 4 {
		rows := min(4, m-i)
		dotRows(rows, n, a[i*lda:], lda, x, &d)
		for r := range rows {
			if beta == 0 {
				y[i+r] = alpha * d[r]
			} else {
				y[i+r] = alpha*d[r] + beta*y[i+r]
			}
		}
	}
}

// scaleVec sets y = beta*y; beta == 0 sets zeros without reading y.
func scaleVec(beta float64, y []float64) {
	switch beta {
	case 1:
	case 0:
		clear(y)
	default:
		for i := range y {
			y[i] *= beta
		}
	}
}

// dotRows sets d[r] to the dot product of row r of a with x[:n], for the
// first rows (at most 4) rows of a.
func dotRows(rows, n int, a []float64, lda int, x []float64, d *[4]float64) {
	if useAsm {
		dotRowsAsm(rows, n, a, lda, x, d)
		return
	}
	dotRowsGo(rows, n, a, lda, x, d)
}

func dotRowsGo(rows, n int, a []float64, lda int, x []float64, d *[4]float64) {
	for r := range rows {
		d[r] = dot(a[r*lda:r*lda+n], x[:n])
	}
}

// Dsymv computes
//
//	y = alpha * A * x + beta * y
//
// for the n x n symmetric matrix A of which only the triangle ul is read,
// with gonum's conventions. Each stored row serves twice: as a row of A in
// a dot product and, transposed, as a column added into y.
func (impl Impl) Dsymv(ul blas.Uplo, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if checkSymv(ul, n, a, lda, x, incX, y, incY) {
		return
	}
	if incX != 1 || incY != 1 || n*n < smallGemv || alpha == 0 {
		impl.Implementation.Dsymv(ul, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	x, y = x[:n], y[:n]
	scaleVec(beta, y)
	var w [1]float64
	for i := range n {
		// Lower: row i holds A(i, 0..i); upper: A(i, i..n-1).
		lo, hi := 0, i
		if ul == blas.Upper {
			lo, hi = i+1, n
		}
		row := a[i*lda:]
		y[i] += alpha * (vdot(row[lo:hi], x[lo:hi]) + row[i]*x[i])
		w[0] = alpha * x[i]
		axpyRows(w[:], row[lo:hi], lda, y[lo:hi])
	}
}
