package sdp

import "math"

// Lifting a block's factors into the dictionary of its Basis. With
//
//	W = [I E]   (n x N, N = n + e, E the e basis vectors as columns)
//
// every factor is u = W c, and every constraint matrix of the block is
// F_i = W L_i W^T, where L_i (order N) has the factors d c c^T and the
// sparse part of F_i in its leading n x n block. Then
//
//	F_i • M                  = L_i • (W^T M W)
//	Tr(F_i X^{-1} F_j Y)     = Tr(L_i (W^T X^{-1} W) L_j (W^T Y W))
//	sum_i x_i F_i            = W (sum_i x_i L_i) W^T,
//
// so apply, combine and the Schur complement run on the lifted block (the
// L_i) with the lifted matrices W^T M W, which cost two GEMMs of n x n x e
// and e x e x n each. The pairs of the Schur complement are then pairs of
// factors with a few non-zeros each, over matrices of order N, in place
// of Gram matrices of all r factors over n (r^2 n): for a network's
// quadratic constraints, whose factors mix one neuron's output, its
// pre-activation (a dense row of weights, one basis vector) and the
// constant, an iteration costs several times less (docs/tuning.md), the
// Cholesky factorisation of the Schur complement then being the largest
// part.

// lift is a block's factors in its basis.
type lift struct {
	e, nl int
	ext   []float64 // E, n x e row-major
	blk   *psdBlock // the lifted block: order nl, the L_i
	// Buffers: two nl x nl lifted matrices and one n x nl product.
	m1, m2, t []float64
}

// liftMinCost is the modelled cost (ns per Schur complement) of the
// block's low-rank terms below which a basis is not used: small blocks
// keep the routes the solver's results were tuned on.
const liftMinCost = 1e8

// forceLift makes liftPays say yes to every basis; tests set it.
var forceLift = false

// liftPays reports whether the block's factors are worth lifting, by the
// cost model of schurcost.go: coefs[con] are the lifted factors of the
// piece of constraint con, e the number of basis vectors.
func liftPays(pb *psdBlock, e int, coefs map[int][]factor) bool {
	n := pb.n
	var r, nnz, nnzc float64
	for _, pc := range pb.pieces {
		for _, f := range pc.fac {
			r++
			nnz += float64(len(f.idx))
		}
		for _, c := range coefs[pc.con] {
			nnzc += float64(len(c.idx))
		}
	}
	if e == 0 || r == 0 {
		return false
	}
	if forceLift {
		return true
	}
	d, s := lowRankCosts(float64(n), r, nnz)
	plain := min(d, s)
	dl, sl := lowRankCosts(float64(n+e), r, nnzc)
	fn, fe := float64(n), float64(e)
	lifted := min(dl, sl) + costGemmFlop*2*(fn*fn*fe+fe*fe*fn)
	return plain >= liftMinCost && lifted <= plain/2
}

// newLift returns the lift of pb in the basis bs, whose lifted factors
// are coefs[con] for the piece of constraint con. The pieces' sparse
// parts must be final: the lifted pieces share them.
func newLift(pb *psdBlock, bs *Basis, coefs map[int][]factor) *lift {
	n, e := pb.n, len(bs.Vecs)
	nl := n + e
	lf := &lift{e: e, nl: nl, ext: make([]float64, n*e),
		m1: make([]float64, nl*nl), m2: make([]float64, nl*nl), t: make([]float64, n*nl)}
	for j, v := range bs.Vecs {
		for k, ix := range v.Index {
			lf.ext[ix*e+j] += v.Value[k]
		}
	}
	lf.blk = &psdBlock{id: pb.id, n: nl}
	for _, pc := range pb.pieces {
		lf.blk.pieces = append(lf.blk.pieces,
			&piece{con: pc.con, ent: pc.ent, exp: pc.exp, rows: pc.rows, fac: coefs[pc.con]})
	}
	return lf
}

// liftCancel is the ratio of |u| to sum_k |c_k| |w_k| below which a
// factor stays in unit vectors: its lifted form would compute u^T M u as
// a sum of terms that large, losing as many digits to cancellation.
const liftCancel = 1e-2

// liftedFactor returns the factor f in basis coordinates: c, or u itself
// (in unit vectors) when c is empty or cancels (liftCancel). norms are the
// Euclidean norms of the basis vectors, n the block's order.
func liftedFactor(f factor, c SparseVec, n int, norms []float64) factor {
	if len(c.Index) == 0 {
		return f
	}
	out := factor{d: f.d}
	mag := 0.0
	for k, ix := range c.Index {
		if c.Value[k] == 0 {
			continue
		}
		out.idx = append(out.idx, int32(ix))
		out.val = append(out.val, c.Value[k])
		w := 1.0
		if ix >= n {
			w = norms[ix-n]
		}
		mag += math.Abs(c.Value[k]) * w
	}
	if norm2(f.val) < liftCancel*mag {
		return f
	}
	return out
}

// vecNorms returns the Euclidean norms of the basis vectors.
func vecNorms(bs *Basis) []float64 {
	out := make([]float64, len(bs.Vecs))
	for j, v := range bs.Vecs {
		out[j] = norm2(v.Value)
	}
	return out
}

// liftMat sets out (nl x nl) to W^T M W for the symmetric n x n matrix
// M and returns it: M E by one GEMM, E^T M as its transpose, E^T (M E) by
// another.
func (lf *lift) liftMat(n int, m, out []float64) []float64 {
	e, nl := lf.e, lf.nl
	for i := 0; i < n; i++ {
		copy(out[i*nl:i*nl+n], m[i*n:i*n+n])
	}
	gemm(false, false, n, e, n, 1, m, n, lf.ext, e, 0, out[n:], nl)
	for i := 0; i < n; i++ {
		for j := 0; j < e; j++ {
			out[(n+j)*nl+i] = out[i*nl+n+j]
		}
	}
	gemm(true, false, e, e, n, 1, lf.ext, e, out[n:], nl, 0, out[n*nl+n:], nl)
	return out
}

// apply adds F_i • M over the block to out[i] through the lifted
// block, for any n x n matrix M: F_i • M = F_i • sym(M), and sym(M) is
// lifted.
func (lf *lift) apply(n int, m []float64, out []float64) {
	s := lf.t[:n*n]
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s[i*n+j] = (m[i*n+j] + m[j*n+i]) / 2
		}
	}
	lf.blk.apply(lf.liftMat(n, s, lf.m1), out)
}

// unlift sets d (n x n) to W L W^T for the nl x nl matrix L.
func (lf *lift) unlift(n int, l, d []float64) {
	e, nl := lf.e, lf.nl
	// T = W L = L[:n, :] + E L[n:, :] (n x nl), then d = T W^T = T[:, :n] + T[:, n:] E^T.
	t := lf.t
	copy(t, l[:n*nl])
	gemm(false, false, n, nl, e, 1, lf.ext, e, l[n*nl:], nl, 1, t, nl)
	for i := 0; i < n; i++ {
		copy(d[i*n:i*n+n], t[i*nl:i*nl+n])
	}
	gemm(false, true, n, n, e, 1, t[n:], nl, lf.ext, e, 1, d, n)
}

// combine sets d to the block's part of sum_i dx_i F_i + theta R0 (full,
// symmetric) through the lifted block.
func (lf *lift) combine(pb *psdBlock, dx []float64, theta float64, d []float64) {
	l := lf.m1
	clear(l)
	for _, pc := range lf.blk.pieces {
		pc.addTo(l, lf.nl, dx[pc.con])
	}
	if theta != 0 {
		pb.r0.addTo(l, lf.nl, theta)
	}
	symmetrizeFromUpper(l, lf.nl)
	lf.unlift(pb.n, l, d)
}
