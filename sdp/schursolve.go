package sdp

import "math"

// factor factors the leading m x m block of B in place (lower triangle).
// B itself is kept in the strict upper triangle and s.diag, for the
// iterative refinement in solve. If B is not numerically positive
// definite, the factorisation is retried with a growing diagonal shift;
// factor reports false when even the largest shift fails.
func (s *schur) factor() bool {
	m, ld, b := s.m, s.ld, s.b
	maxd := 0.0
	for i := 0; i < m; i++ {
		s.diag[i] = b[i*ld+i]
		maxd = max(maxd, b[i*ld+i])
	}
	mirrorLower(m, b, ld)
	s.shift = 0
	if cholesky(m, b, ld) && s.pivotsOK() {
		return true
	}
	if !(maxd > 0) || !finite(maxd) {
		return false
	}
	for _, rel := range []float64{1e-15, 1e-13, 1e-11, 1e-9, 1e-7} {
		s.shift = rel * maxd
		for i := 0; i < m; i++ {
			row := b[i*ld:]
			for j := 0; j < i; j++ {
				row[j] = b[j*ld+i]
			}
			row[i] = s.diag[i] + s.shift
		}
		if cholesky(m, b, ld) && s.pivotsOK() {
			return true
		}
	}
	return false
}

// mirrorTile is the edge of the square tiles mirrorLower copies through:
// a column of the destination is then written in runs that stay in cache.
const mirrorTile = 32

// mirrorLower copies the strict lower triangle of the m x m matrix b into
// its strict upper triangle, tile by tile, the rows shared among
// goroutines in blocks of about equal area (a pure copy: the bits do not
// depend on the cut).
func mirrorLower(m int, b []float64, ld int) {
	w := workers(m * m / 2 / mirrorPerWorker)
	if w <= 1 {
		mirrorRows(m, b, ld, 0, m)
		return
	}
	var buf [maxWorkers + 1]int
	cuts := append(buf[:0], 0)
	for c := 1; c < w; c++ {
		i := int(float64(m)*math.Sqrt(float64(c)/float64(w))) / mirrorTile * mirrorTile
		if i > cuts[len(cuts)-1] && i < m {
			cuts = append(cuts, i)
		}
	}
	share(append(cuts, m), func(lo, hi int) { mirrorRows(m, b, ld, lo, hi) })
}

// mirrorPerWorker is the fewest elements mirrorLower copies per goroutine.
const mirrorPerWorker = 1 << 16

// mirrorRows is mirrorLower on rows [lo, hi), lo a multiple of mirrorTile.
func mirrorRows(m int, b []float64, ld, lo, hi int) {
	for i0 := lo; i0 < hi; i0 += mirrorTile {
		for j0 := 0; j0 <= i0; j0 += mirrorTile {
			for i := i0; i < min(i0+mirrorTile, hi); i++ {
				row := b[i*ld:]
				for j := j0; j < min(j0+mirrorTile, i); j++ {
					b[j*ld+i] = row[j]
				}
			}
		}
	}
}

// pivotTol is the smallest accepted ratio L_ii^2 / B_ii: a smaller pivot
// means the row depends on the previous ones to working precision, and
// the solution would carry rounding noise in that direction at full size.
const pivotTol = 1e-14

// pivotsOK reports whether the factor's pivots keep pivotTol of B's
// diagonal.
func (s *schur) pivotsOK() bool {
	for i := 0; i < s.m; i++ {
		l := s.b[i*s.ld+i]
		if l*l < pivotTol*s.diag[i] {
			return false
		}
	}
	return true
}

// solve sets x = B^{-1} rhs using the factor, followed by one step of
// iterative refinement against the saved B.
func (s *schur) solve(rhs, x []float64) {
	m, ld := s.m, s.ld
	copy(x, rhs)
	solveLower(false, m, s.b, ld, x)
	solveLower(true, m, s.b, ld, x)
	r := s.tmp
	s.mulSaved(x, r)
	for i := range r {
		r[i] = rhs[i] - r[i]
	}
	solveLower(false, m, s.b, ld, r)
	solveLower(true, m, s.b, ld, r)
	for i := range x {
		x[i] += r[i]
	}
}

// mulSaved sets out = B x for the B saved by factor. The columns of out
// are shared among goroutines; each element takes the terms of the serial
// row-by-row product in its order (diagonal, the rows above, its own
// row), so the bits do not depend on the cut.
func (s *schur) mulSaved(x, out []float64) {
	m := s.m
	if w := workers(m * m / mulSavedPerWorker); w > 1 {
		var buf [maxWorkers + 1]int
		share(evenCuts(buf[:0], m, w), func(lo, hi int) { s.mulSavedCols(x, out, lo, hi) })
		return
	}
	s.mulSavedCols(x, out, 0, m)
}

// mulSavedPerWorker is the fewest multiply-adds of mulSaved per goroutine.
const mulSavedPerWorker = 1 << 17

// mulSavedCols sets out[lo:hi] of out = B x: B's strict upper triangle
// holds rows i < j of column j, and row j from the diagonal on.
func (s *schur) mulSavedCols(x, out []float64, lo, hi int) {
	m, ld := s.m, s.ld
	for j := lo; j < hi; j++ {
		out[j] = s.diag[j] * x[j]
	}
	for i := 0; i+1 < hi; i++ {
		c := max(lo, i+1)
		xi := x[i]
		for t, u := range s.b[i*ld+c : i*ld+hi] {
			out[c+t] += u * xi
		}
	}
	for i := lo; i < hi; i++ {
		acc := 0.0
		for t, u := range s.b[i*ld+i+1 : i*ld+m] {
			acc += u * x[i+1+t]
		}
		out[i] += acc
	}
}

// row returns row m of B: Tr(F_j X^{-1} R0 Y) for j < m.
func (s *schur) row() []float64 { return s.b[s.m*s.ld : s.m*s.ld+s.m] }
