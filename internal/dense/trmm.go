package dense

import "gonum.org/v1/gonum/blas"

// Dtrmm computes
//
//	B = alpha * op(A) * B   if s == blas.Left  (A is m x m)
//	B = alpha * B * op(A)   if s == blas.Right (A is n x n)
//
// where A is triangular, with gonum's conventions.
//
// Like Dtrsm it recurses in place: with the triangle halved, one half of B
// is multiplied by its diagonal block, gets the other half's contribution
// by one GEMM while that half is still unchanged, and the other half is
// multiplied last.
func (impl Impl) Dtrmm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	act, tri := triArgs(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	switch {
	case act == delegate:
		impl.Implementation.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	case act == done:
	case s == blas.Left:
		scale(m, n, alpha, b, ldb, full)
		trmmLeft(m, n, tri, b, ldb)
	default:
		scale(m, n, alpha, b, ldb, full)
		trmmRight(m, n, tri, b, ldb)
	}
}

// trmmLeft overwrites the m x n matrix b with T b for the m x m triangle t.
func trmmLeft(m, n int, t triangle, b []float64, ldb int) {
	if m <= trsmLeaf {
		multiplyRows(m, n, t, b, ldb)
		return
	}
	m1 := split(m)
	m2 := m - m1
	b2 := b[m1*ldb:]
	if t.lower {
		// [T11 0; T21 T22] [B1; B2] = [T11 B1; T21 B1 + T22 B2]
		trmmLeft(m2, n, t.sub(m1), b2, ldb)
		t21 := t.op.sub(m1, 0)
		b1 := operand{data: b, ld: ldb}
		gemm(m2, n, m1, 1, &t21, &b1, 1, b2, ldb, full)
		trmmLeft(m1, n, t, b, ldb)
		return
	}
	// [T11 T12; 0 T22] [B1; B2] = [T11 B1 + T12 B2; T22 B2]
	trmmLeft(m1, n, t, b, ldb)
	t12 := t.op.sub(0, m1)
	bb2 := operand{data: b2, ld: ldb}
	gemm(m1, n, m2, 1, &t12, &bb2, 1, b, ldb, full)
	trmmLeft(m2, n, t.sub(m1), b2, ldb)
}

// trmmRight overwrites the m x n matrix b with b T for the n x n triangle
// t.
func trmmRight(m, n int, t triangle, b []float64, ldb int) {
	if n <= trsmLeaf {
		onTransposed(m, n, t, b, ldb, false)
		return
	}
	n1 := split(n)
	n2 := n - n1
	b2 := b[n1:]
	if t.lower {
		// [B1 B2] [T11 0; T21 T22] = [B1 T11 + B2 T21, B2 T22]
		trmmRight(m, n1, t, b, ldb)
		bb2 := operand{data: b2, ld: ldb}
		t21 := t.op.sub(n1, 0)
		gemm(m, n1, n2, 1, &bb2, &t21, 1, b, ldb, full)
		trmmRight(m, n2, t.sub(n1), b2, ldb)
		return
	}
	// [B1 B2] [T11 T12; 0 T22] = [B1 T11, B1 T12 + B2 T22]
	trmmRight(m, n2, t.sub(n1), b2, ldb)
	b1 := operand{data: b, ld: ldb}
	t12 := t.op.sub(0, n1)
	gemm(m, n2, n1, 1, &b1, &t12, 1, b2, ldb, full)
	trmmRight(m, n1, t, b, ldb)
}

// multiplyRows overwrites the m x n matrix b with T b, one whole row of b
// at a time, in the order that reads every row before it is overwritten:
// row i becomes T(i,i) B_i + sum_q T(i,q) B_q over the rows q on the
// triangle's side of i.
func multiplyRows(m, n int, t triangle, b []float64, ldb int) {
	var w [trsmLeaf]float64
	for step := range m {
		i := step // upper: rows below i are still unchanged
		if t.lower {
			i = m - 1 - step
		}
		lo, hi := i+1, m
		if t.lower {
			lo, hi = 0, i
		}
		row := b[i*ldb : i*ldb+n]
		if !t.unit {
			d := t.op.data[t.op.index(i, i)]
			for j := range row {
				row[j] *= d
			}
		}
		if lo == hi {
			continue
		}
		x := w[:hi-lo]
		for q := lo; q < hi; q++ {
			x[q-lo] = t.op.data[t.op.index(i, q)]
		}
		axpyRows(x, b[lo*ldb:], ldb, row)
	}
}
