package bounds

import (
	"math/bits"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Work space of the back-substitution.
//
// A back-substitution replaces its coefficient matrix at every step by one
// of a new shape, and a branch and bound runs many thousands of them on
// matrices of the same few shapes. The matrices a step drops go back to a
// pool, by capacity a power of two, for the next step (of this or any
// other goroutine) to reuse; this only saves the allocator and the
// collector work, the arithmetic is the same.

// floatPools[c] holds *[]float64 of capacity 2^c.
var floatPools [bits.UintSize]sync.Pool

// getFloats returns a slice of n float64s; zeroed if zero, otherwise of
// unspecified content.
func getFloats(n int, zero bool) []float64 {
	if n == 0 {
		return nil
	}
	c := bits.Len(uint(n - 1))
	if p, ok := floatPools[c].Get().(*[]float64); ok {
		s := (*p)[:n]
		if zero {
			clear(s)
		}
		return s
	}
	return make([]float64, n, 1<<c)
}

// putFloats returns s to the pool for reuse; s must not be used after.
// Slices whose capacity is not a power of two are left to the collector.
func putFloats(s []float64) {
	c := cap(s)
	if c == 0 || c&(c-1) != 0 {
		return
	}
	s = s[:0]
	floatPools[bits.Len(uint(c))-1].Put(&s)
}

// newScratch returns an r x c matrix on pooled storage (zeroed if zero).
func newScratch(r, c int, zero bool) *mat.Dense {
	if r == 0 || c == 0 {
		return mat.NewDense(max(r, 1), max(c, 1), nil) // mat has no empty matrices
	}
	return mat.NewDense(r, c, getFloats(r*c, zero))
}

// recycle returns the storage of the form's coefficient matrix to the
// pool; the form must not be used after.
func (f *linearForm) recycle() {
	if f.Lam != nil {
		raw := f.Lam.RawMatrix()
		putFloats(raw.Data)
		f.Lam = nil
	}
}

// replaceLam sets the form's coefficient matrix to next and recycles the
// storage of the old one.
func (f *linearForm) replaceLam(next *mat.Dense) {
	f.recycle()
	f.Lam = next
}

// gemmBlock is gonum's block size for its parallel matrix product.
const gemmBlock = 64

// gemm sets c = a b + beta c (tB blas.Trans: a b^T; beta 0 or 1) as
// blas64.Gemm(blas.NoTrans, tB, 1, a, b, beta, c) does, on the calling
// goroutine: where gonum's implementation would multiply blocks of 64 x 64
// on parallel goroutines (at least four blocks of c), the same blocks are
// multiplied here in the same order along the inner dimension, so the
// result is the same to the bit. The branch and bound already keeps every
// core busy with nodes, and the goroutines of a parallel product cost more
// than they save on the matrices of one node (ACAS Xu: 100 x 100).
func gemm(tB blas.Transpose, a, b blas64.General, beta float64, c blas64.General) {
	m, n, k := c.Rows, c.Cols, a.Cols
	nb := func(d int) int { return (d + gemmBlock - 1) / gemmBlock }
	if nb(m)*nb(n) < 4 {
		blas64.Gemm(blas.NoTrans, tB, 1, a, b, beta, c)
		return
	}
	if beta == 0 {
		for i := range m {
			clear(c.Data[i*c.Stride : i*c.Stride+n])
		}
	}
	for i := 0; i < m; i += gemmBlock {
		li := min(gemmBlock, m-i)
		for j := 0; j < n; j += gemmBlock {
			lj := min(gemmBlock, n-j)
			cs := view(c, i, j, li, lj)
			for l := 0; l < k; l += gemmBlock {
				ll := min(gemmBlock, k-l)
				var bs blas64.General
				if tB == blas.Trans {
					bs = view(b, j, l, lj, ll)
				} else {
					bs = view(b, l, j, ll, lj)
				}
				blas64.Gemm(blas.NoTrans, tB, 1, view(a, i, l, li, ll), bs, 1, cs)
			}
		}
	}
}

// view returns the r x c block of g at row i, column j.
func view(g blas64.General, i, j, r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: g.Stride, Data: g.Data[i*g.Stride+j : (i+r-1)*g.Stride+j+c]}
}
