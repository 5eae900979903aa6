package dense

import "gonum.org/v1/gonum/blas"

// trmmBlock is the height (or width) of the blocks of B that Dtrmm
// recomputes at a time (a variable for tests, like the GEMM blocking).
var trmmBlock = 192

// Dtrmm computes
//
//	B = alpha * op(A) * B   if s == blas.Left  (A is m x m)
//	B = alpha * B * op(A)   if s == blas.Right (A is n x n)
//
// where A is triangular, with gonum's conventions.
//
// B is overwritten one block of rows (or columns) at a time, each block
// computed by GEMM into a buffer from the blocks of B not yet overwritten;
// the triangle is read through a packing that supplies its zeros.
func (impl Impl) Dtrmm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	act, tri := triArgs(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	switch {
	case act == delegate:
		impl.Implementation.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	case act == done:
	case s == blas.Left:
		trmmLeft(m, n, alpha, tri, b, ldb)
	default:
		trmmRight(m, n, alpha, tri, b, ldb)
	}
}

// shaped returns the operand of t that reads zeros outside the triangle
// (and ones on a unit diagonal).
func (t triangle) shaped() operand {
	o := t.op
	o.shape = triUpper
	if t.lower != o.trans { // the stored matrix is lower triangular
		o.shape = triLower
	}
	o.unit = t.unit
	return o
}

// trmmLeft overwrites the m x n matrix b with alpha T b for the m x m
// triangle t.
func trmmLeft(m, n int, alpha float64, t triangle, b []float64, ldb int) {
	p := getBuf(&poolTmp, min(m, trmmBlock)*n)
	defer poolTmp.Put(p)
	tmp := *p
	opT := t.shaped()
	opB := operand{data: b, ld: ldb}
	for blk := 0; blk < m; blk += trmmBlock {
		// Lower: new rows [i0, i1) need old rows [0, i1), so go upwards.
		i0 := blk
		if t.lower {
			i0 = max(0, m-blk-trmmBlock)
		}
		i1 := min(m, i0+trmmBlock)
		if t.lower && blk > 0 {
			i1 = m - blk
		}
		k0, k1 := 0, i1
		if !t.lower {
			k0, k1 = i0, m
		}
		ti := opT.sub(i0, k0)
		bk := opB.sub(k0, 0)
		gemm(i1-i0, n, k1-k0, alpha, &ti, &bk, 0, tmp, n, full)
		for i := i0; i < i1; i++ {
			copy(b[i*ldb:i*ldb+n], tmp[(i-i0)*n:])
		}
	}
}

// trmmRight overwrites the m x n matrix b with alpha b T for the n x n
// triangle t.
func trmmRight(m, n int, alpha float64, t triangle, b []float64, ldb int) {
	w := min(n, trmmBlock)
	p := getBuf(&poolTmp, m*w)
	defer poolTmp.Put(p)
	tmp := *p
	opT := t.shaped()
	opB := operand{data: b, ld: ldb}
	for blk := 0; blk < n; blk += trmmBlock {
		// Lower: new columns [j0, j1) need old columns [j0, n), so go
		// rightwards; upper: they need [0, j1), so go leftwards.
		j0 := blk
		if !t.lower {
			j0 = max(0, n-blk-trmmBlock)
		}
		j1 := min(n, j0+trmmBlock)
		if !t.lower && blk > 0 {
			j1 = n - blk
		}
		k0, k1 := j0, n
		if !t.lower {
			k0, k1 = 0, j1
		}
		jb := j1 - j0
		bk := opB.sub(0, k0)
		tj := opT.sub(k0, j0)
		gemm(m, jb, k1-k0, alpha, &bk, &tj, 0, tmp, jb, full)
		for i := range m {
			copy(b[i*ldb+j0:i*ldb+j1], tmp[i*jb:i*jb+jb])
		}
	}
}
