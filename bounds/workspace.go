package bounds

import (
	"math/bits"
	"sync"

	"github.com/nnbound/nnbound/internal/dense"
	"github.com/nnbound/nnbound/nn"
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

// pooledMags returns max(|Lo|, |Hi|) of the intervals of parts, one part
// after the other, in pooled storage (give it back with putFloats).
func pooledMags(parts ...[]Interval) []float64 {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out, k := getFloats(n, false), 0
	for _, p := range parts {
		for _, v := range p {
			out[k] = v.Mag()
			k++
		}
	}
	return out
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

// gemm sets c = a b + beta c (tB blas.Trans: a b^T; beta 0 or 1) on the
// calling goroutine, with b packed once for all its products by pc (nil:
// packed at every product; the result is the same to the bit), by the blocked product of internal/dense (packed
// operands and a register-blocked micro-kernel, AVX2 and FMA where the CPU
// has them; 3 to 8 times gonum's pure-Go Dgemm on the shapes of ACAS Xu,
// BenchmarkDgemmShapes). The branch and bound already keeps every core
// busy with nodes, so the product is never shared among goroutines.
//
// Soundness does not depend on how the product is evaluated. The error
// terms of a substitution (affineErr) bound the rounding of each entry,
// a sum of n products, by
//
//	2 (n+2) u sum_i |Lam_ri| |W_ij|  +  (n+2) 2^-1074
//
// which is above Higham's gamma_n bound (Accuracy and Stability of
// Numerical Algorithms, 2nd ed., section 3.1) for any order of summation:
// in any evaluation tree each product goes through at most n roundings,
// and a fused multiply-add rounds once, satisfying the same model
// |fl(x) - x| <= u |x| (plus 2^-1075 on underflow). With beta = 1 the old
// entry of c is one more term of the sum (affineJoint counts it in n).
// The blocking of the inner dimension, the micro-kernel's order and FMA
// therefore change the result in the last bits only, within the bound.
func gemm(pc *packCache, tB blas.Transpose, a, b blas64.General, beta float64, c blas64.General) {
	if p := pc.get(tB, b); p != nil {
		dense.Impl{}.DgemmPacked(c.Rows, 1, a.Data, a.Stride, p, beta, c.Data, c.Stride)
		return
	}
	dense.Impl{}.DgemmSerial(blas.NoTrans, tB, c.Rows, c.Cols, a.Cols, 1, a.Data, a.Stride, b.Data, b.Stride, beta, c.Data, c.Stride)
}

// packCache keeps the matrices that the products of a back-substitution
// chain take as their second operand packed (dense.PackedB): a Pair
// multiplies by a level's matrix once for every target layer above it,
// and the slope optimiser once per iteration, and packing is a quarter of
// a product's time on the thin products of a branch and bound node. A
// matrix is known by its storage, shape and transposition, and the cache
// holds it, so a different matrix is never taken for it; it must not
// change while cached. Safe for concurrent use; a nil cache keeps nothing.
type packCache struct {
	mu      sync.Mutex
	entries []packEntry
}

// packEntry is one matrix of a packCache.
type packEntry struct {
	tB blas.Transpose
	b  blas64.General
	p  *dense.PackedB
}

// maxPacked bounds the entries of a packCache (a level has at most two
// matrices, a forked propagation may bring two more).
const maxPacked = 8

// get returns b packed as the operand op(b) (nil for a nil cache or an
// empty b).
func (c *packCache) get(tB blas.Transpose, b blas64.General) *dense.PackedB {
	if c == nil || len(b.Data) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if e.tB == tB && e.b.Rows == b.Rows && e.b.Cols == b.Cols && e.b.Stride == b.Stride && &e.b.Data[0] == &b.Data[0] {
			return e.p
		}
	}
	k, n := b.Rows, b.Cols
	if tB != blas.NoTrans {
		k, n = n, k
	}
	p := dense.NewPackedB(tB, k, n, b.Data, b.Stride)
	if len(c.entries) == maxPacked {
		c.entries = c.entries[1:]
	}
	c.entries = append(c.entries, packEntry{tB, b, p})
	return p
}

// view returns the r x c block of g at row i, column j.
func view(g blas64.General, i, j, r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: g.Stride, Data: g.Data[i*g.Stride+j : (i+r-1)*g.Stride+j+c]}
}

// chainPacks holds what the Pairs of a chain of Options.Within on the same
// two networks share: the layers' matrices and the joint levels' (built
// once, jointRelax), packed for products, and the layers' parameter
// differences. They depend on the networks only, and a branch and bound
// bounds every node within its parent's bounds, so each is built and
// packed once per search rather than once per node. Safe for concurrent
// use (the children of a node are bounded in parallel).
type chainPacks struct {
	f1, f2            *nn.Network
	net1, net2, joint []packCache // per layer
	mu                sync.Mutex
	jointW            []*mat.Dense
	diffs             []*layerDiff
}

// chainPacksFor returns the chainPacks of within if it was bounded on the
// networks f1 and f2 (the same values), else new ones.
func chainPacksFor(within *PairBounds, f1, f2 *nn.Network) *chainPacks {
	if within != nil {
		if c := within.packs; c != nil && c.f1 == f1 && c.f2 == f2 {
			return c
		}
	}
	d1, d2 := len(f1.Layers), len(f2.Layers)
	return &chainPacks{f1: f1, f2: f2, net1: make([]packCache, d1), net2: make([]packCache, d2),
		joint: make([]packCache, min(d1, d2)), jointW: make([]*mat.Dense, min(d1, d2)), diffs: make([]*layerDiff, min(d1, d2))}
}

// layerDiff returns newLayerDiff(l1, l2, r1, r2) for layer k of the two
// networks, made the first time when the layers have no noise (r1, r2
// nil; noise may differ between Pairs); it must not be modified.
func (c *chainPacks) layerDiff(k int, l1, l2 nn.Layer, r1, r2 []float64) *layerDiff {
	if r1 != nil || r2 != nil {
		return newLayerDiff(l1, l2, r1, r2)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.diffs[k] == nil {
		c.diffs[k] = newLayerDiff(l1, l2, nil, nil)
	}
	return c.diffs[k]
}

// jointMatrix returns the joint matrix of level k, made by build the first
// time; it must not be modified.
func (c *chainPacks) jointMatrix(k int, build func() *mat.Dense) *mat.Dense {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.jointW[k] == nil {
		c.jointW[k] = build()
	}
	return c.jointW[k]
}
