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
// Without AVX-512, a lower triangle of order trsvBlock or more with a unit
// stride is solved by trsvLower, bit-identical to gonum. With a unit stride
// and n of some size it substitutes with the AVX-512
// dot product (A x = b: row i of A against the solved part of x) or axpy
// (Aᵀ x = b: row i of A, scaled, out of the unsolved part); everything
// else, argument errors included, goes to gonum.
func (impl Impl) Dtrsv(ul blas.Uplo, tA blas.Transpose, d blas.Diag, n int, a []float64, lda int, x []float64, incX int) {
	if !useAsm && n >= trsvBlock && incX == 1 && ul == blas.Lower && validTrans(tA) && validDiag(d) &&
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
// block by substitution, and between blocks by a matrix-vector product
// whose rows (L x = b: partial dot products) or columns (Lᵀ x = b:
// updates by the solved rows) are shared among goroutines. Every element
// goes through the operations of gonum's Dtrsv in the same order (one
// running sum from the first column; updates from the last row up), so
// the result is bit-identical to gonum's whatever GOMAXPROCS.
func trsvLower(trans, nonUnit bool, n int, a []float64, lda int, x []float64) {
	p := getBuf(&poolTmp, trsvBlock) // not on the stack: goroutines write it
	defer poolTmp.Put(p)
	sums := *p
	if !trans {
		for s := 0; s < n; s += trsvBlock {
			e := min(s+trsvBlock, n)
			if w := rangeWorkers(e-s, (e-s)*s >= parWorkLevel2); w > 1 {
				s := s // a copy for the closure: the loop's s would be moved to the heap
				shareRange(e-s, w, func(lo, hi int) { trsvSums(a, lda, x, s, s+lo, s+hi, sums) })
			} else {
				trsvSums(a, lda, x, s, s, e, sums)
			}
			for i := s; i < e; i++ {
				sum := sums[i-s]
				for j, v := range a[i*lda+s : i*lda+i] {
					sum += x[s+j] * v
				}
				x[i] -= sum
				if nonUnit {
					x[i] /= a[i*lda+i]
				}
			}
		}
		return
	}
	for e := n; e > 0; {
		s := (e - 1) / trsvBlock * trsvBlock
		for i := e - 1; i >= s; i-- {
			if nonUnit {
				x[i] /= a[i*lda+i]
			}
			xi := x[i]
			for j, v := range a[i*lda+s : i*lda+i] {
				x[s+j] -= v * xi
			}
		}
		if w := rangeWorkers(s, (e-s)*s >= parWorkLevel2); w > 1 {
			s, e := s, e // copies for the closure, as above
			shareRange(s, w, func(lo, hi int) { trsvUpdate(a, lda, x, s, e, lo, hi) })
		} else if s > 0 {
			trsvUpdate(a, lda, x, s, e, 0, s)
		}
		e = s
	}
}

// trsvSums sets sums[i-s], for rows i in [lo, hi) of a, to the running
// sum over the row's first s elements times x[:s].
func trsvSums(a []float64, lda int, x []float64, s, lo, hi int, sums []float64) {
	for i := lo; i < hi; i++ {
		var sum float64
		for j, v := range a[i*lda : i*lda+s] {
			sum += x[j] * v
		}
		sums[i-s] = sum
	}
}

// trsvUpdate subtracts from x[lo:hi] the solved x[i] times row i of a,
// for the rows i of [s, e) from the last up.
func trsvUpdate(a []float64, lda int, x []float64, s, e, lo, hi int) {
	for i := e - 1; i >= s; i-- {
		xi := x[i]
		for j, v := range a[i*lda+lo : i*lda+hi] {
			x[lo+j] -= v * xi
		}
	}
}
