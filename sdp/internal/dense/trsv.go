package dense

import "gonum.org/v1/gonum/blas"

// trsvBlock is the order from which Dtrsv solves a lower triangle by
// blocks of trsvBlock rows (see trsvLower).
const trsvBlock = 256

// Dtrsv solves
//
//	A * x = b    if tA == blas.NoTrans
//	Aᵀ * x = b   otherwise
//
// for the n x n triangular A, x overwriting b, with gonum's conventions.
// A lower triangle of order trsvBlock or more with a unit stride is solved
// by trsvLower on any machine. Otherwise, with a unit stride and n of some size it substitutes with the AVX-512
// dot product (A x = b: row i of A against the solved part of x) or axpy
// (Aᵀ x = b: row i of A, scaled, out of the unsolved part); everything
// else, argument errors included, goes to gonum.
func (impl Impl) Dtrsv(ul blas.Uplo, tA blas.Transpose, d blas.Diag, n int, a []float64, lda int, x []float64, incX int) {
	if n >= trsvBlock && incX == 1 && ul == blas.Lower && validTrans(tA) && validDiag(d) &&
		lda >= n && len(x) >= n && len(a) >= lda*(n-1)+n {
		trsvLower(isTrans(tA), d == blas.NonUnit, n, a, lda, x[:n])
		return
	}
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

// trsvLower solves L x = b (or Lᵀ x = b if trans) for the n x n lower
// triangle L in a, x overwriting b, by blocks of trsvBlock rows: within a
// block by substitution, and between blocks by one matrix-vector product
// whose rows (L x = b: dot products) or columns (Lᵀ x = b: sums of scaled
// rows) are shared among goroutines. Every element goes through the same
// operations in the same order whatever the number of goroutines, and the
// blocks depend on n only, so the result is bit-identical for any
// GOMAXPROCS.
func trsvLower(trans, nonUnit bool, n int, a []float64, lda int, x []float64) {
	if !trans {
		for s := 0; s < n; s += trsvBlock {
			e := min(s+trsvBlock, n)
			if w := rangeWorkers(e-s, (e-s)*s >= parWorkLevel2); w > 1 {
				shareRange(e-s, w, func(lo, hi int) { trsvDots(a, lda, x, s, s+lo, s+hi) })
			} else {
				trsvDots(a, lda, x, s, s, e)
			}
			for i := s; i < e; i++ {
				x[i] -= vdot(a[i*lda+s:i*lda+i], x[s:i])
				if nonUnit {
					x[i] /= a[i*lda+i]
				}
			}
		}
		return
	}
	var xi [1]float64
	p := getBuf(&poolTmp, trsvBlock) // not on the stack: goroutines read it
	defer poolTmp.Put(p)
	neg := *p
	for e := n; e > 0; {
		s := (e - 1) / trsvBlock * trsvBlock
		for i := e - 1; i >= s; i-- {
			if nonUnit {
				x[i] /= a[i*lda+i]
			}
			if x[i] != 0 {
				xi[0] = -x[i]
				axpyRows(xi[:], a[i*lda+s:i*lda+i], lda, x[s:i])
			}
		}
		if s > 0 {
			q := neg[:e-s]
			for i := range q {
				q[i] = -x[s+i]
			}
			if w := rangeWorkers(s, (e-s)*s >= parWorkLevel2); w > 1 {
				shareRange(s, w, func(lo, hi int) { axpyRows(q, a[s*lda+lo:], lda, x[lo:hi]) })
			} else {
				axpyRows(q, a[s*lda:], lda, x[:s])
			}
		}
		e = s
	}
}

// trsvDots subtracts from x[i], for rows i in [lo, hi) of a, the product
// of the row's first s elements with x[:s].
func trsvDots(a []float64, lda int, x []float64, s, lo, hi int) {
	for i := lo; i < hi; i++ {
		x[i] -= vdot(a[i*lda:i*lda+s], x[:s])
	}
}
