package dense

import "gonum.org/v1/gonum/blas"

// trsmLeaf is the order at or below which triangular solves and multiplies
// work row by row instead of splitting further.
const trsmLeaf = 16

// Dtrsm solves
//
//	op(A) * X = alpha * B   if s == blas.Left  (A is m x m)
//	X * op(A) = alpha * B   if s == blas.Right (A is n x n)
//
// for the m x n matrix X, which overwrites B, where A is triangular, with
// gonum's conventions. No check is made that A is invertible.
//
// The solve is recursive: the triangle is halved, one half solved, the
// other half's right-hand side updated by one GEMM, and the other half
// solved, so that nearly all the work is GEMM.
func (impl Impl) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	act, tri := triArgs(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	switch {
	case act == delegate:
		impl.Implementation.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	case act == done:
	case s == blas.Left:
		scale(m, n, alpha, b, ldb, full)
		trsmLeft(m, n, tri, b, ldb)
	default:
		scale(m, n, alpha, b, ldb, full)
		trsmRightShared(m, n, tri, b, ldb)
	}
}

// action is what a routine does after checking its arguments.
type action uint8

const (
	done     action = iota // nothing: the result is empty
	delegate               // call gonum: the problem is too small to block
	blocked                // run the blocked code
)

// triArgs checks the arguments of Dtrsm and Dtrmm, panicking as gonum
// does, and returns what to do and the triangle op(A).
func triArgs(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) (action, triangle) {
	if checkTri(s, ul, tA, d, m, n, a, lda, b, ldb) {
		return done, triangle{}
	}
	k := m
	if s == blas.Right {
		k = n
	}
	if m*n*k < smallGemm || alpha == 0 {
		return delegate, triangle{}
	}
	return blocked, triangle{
		op:    operand{data: a, ld: lda, trans: isTrans(tA)},
		lower: (ul == blas.Lower) != isTrans(tA),
		unit:  d == blas.Unit,
	}
}

// triangle is a triangular matrix T = op(A): op is A with its transpose
// flag, lower says whether op(A) (not A) is lower triangular, and unit that
// its diagonal is taken as ones.
type triangle struct {
	op    operand
	lower bool
	unit  bool
}

// sub returns the diagonal block of t starting at (i, i).
func (t triangle) sub(i int) triangle {
	t.op = t.op.sub(i, i)
	return t
}

// trsmLeft overwrites the m x n matrix b with T^{-1} b for the m x m
// triangle t.
func trsmLeft(m, n int, t triangle, b []float64, ldb int) {
	if m <= trsmLeaf {
		substitute(m, n, t, b, ldb)
		return
	}
	m1 := split(m)
	m2 := m - m1
	b2 := b[m1*ldb:]
	if t.lower {
		// [T11 0; T21 T22] [X1; X2] = [B1; B2]
		trsmLeft(m1, n, t, b, ldb)
		t21 := t.op.sub(m1, 0)
		x1 := operand{data: b, ld: ldb}
		gemm(m2, n, m1, -1, &t21, &x1, 1, b2, ldb, full)
		trsmLeft(m2, n, t.sub(m1), b2, ldb)
		return
	}
	// [T11 T12; 0 T22] [X1; X2] = [B1; B2]
	trsmLeft(m2, n, t.sub(m1), b2, ldb)
	t12 := t.op.sub(0, m1)
	x2 := operand{data: b2, ld: ldb}
	gemm(m1, n, m2, -1, &t12, &x2, 1, b, ldb, full)
	trsmLeft(m1, n, t, b, ldb)
}

// transposed returns the triangle Tᵀ.
func (t triangle) transposed() triangle {
	t.op.trans = !t.op.trans
	t.op.r, t.op.c = t.op.c, t.op.r
	t.lower = !t.lower
	return t
}

// trsmRight overwrites the m x n matrix b with b T^{-1} for the n x n
// triangle t.
func trsmRight(m, n int, t triangle, b []float64, ldb int) {
	if n <= trsmLeaf {
		onTransposed(m, n, t, b, ldb, true)
		return
	}
	n1 := split(n)
	n2 := n - n1
	b2 := b[n1:]
	if t.lower {
		// [X1 X2] [T11 0; T21 T22] = [B1 B2]
		trsmRight(m, n2, t.sub(n1), b2, ldb)
		x2 := operand{data: b2, ld: ldb}
		t21 := t.op.sub(n1, 0)
		gemm(m, n1, n2, -1, &x2, &t21, 1, b, ldb, full)
		trsmRight(m, n1, t, b, ldb)
		return
	}
	// [X1 X2] [T11 T12; 0 T22] = [B1 B2]
	trsmRight(m, n1, t, b, ldb)
	x1 := operand{data: b, ld: ldb}
	t12 := t.op.sub(0, n1)
	gemm(m, n2, n1, -1, &x1, &t12, 1, b2, ldb, full)
	trsmRight(m, n2, t.sub(n1), b2, ldb)
}

// split returns where to cut a recursion of order n: about half, rounded
// to a multiple of the micro-tile height.
func split(n int) int {
	if n >= 2*mr {
		return n / 2 / mr * mr
	}
	return n / 2
}

// substitute overwrites the m x n matrix b with T^{-1} b by forward or
// back substitution, one whole row of b at a time.
func substitute(m, n int, t triangle, b []float64, ldb int) {
	var w [trsmLeaf]float64
	for step := range m {
		i := step
		if !t.lower {
			i = m - 1 - step
		}
		// Row i of X: (B_i - sum_q T(i,q) X_q) / T(i,i), q over solved rows.
		lo, hi := 0, i // solved rows
		if !t.lower {
			lo, hi = i+1, m
		}
		row := b[i*ldb : i*ldb+n]
		if lo < hi {
			x := w[:hi-lo]
			for q := lo; q < hi; q++ {
				x[q-lo] = -t.op.data[t.op.index(i, q)]
			}
			axpyRows(x, b[lo*ldb:], ldb, row)
		}
		if !t.unit {
			inv := 1 / t.op.data[t.op.index(i, i)]
			for j := range row {
				row[j] *= inv
			}
		}
	}
}

// onTransposed overwrites the m x n matrix b (n is at most trsmLeaf) with
// b T^{-1} if solve, else with b T. It works on a transposed copy, solving
// Tᵀ Xᵀ = Bᵀ or forming Tᵀ Bᵀ, so that the substitution or product runs
// along contiguous rows of length m.
func onTransposed(m, n int, t triangle, b []float64, ldb int, solve bool) {
	ldt := m + 8 // not a power of two: the n rows of the copy fall in different cache sets
	p := getBuf(&poolTmp, n*ldt)
	defer poolTmp.Put(p)
	bt := *p
	for i := range m {
		for j, v := range b[i*ldb : i*ldb+n] {
			bt[j*ldt+i] = v
		}
	}
	if solve {
		substitute(n, m, t.transposed(), bt, ldt)
	} else {
		multiplyRows(n, m, t.transposed(), bt, ldt)
	}
	for i := range m {
		row := b[i*ldb : i*ldb+n]
		for j := range row {
			row[j] = bt[j*ldt+i]
		}
	}
}
