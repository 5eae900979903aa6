package sdp

// Low-rank terms of the Schur complement. For factors d u u^T of one
// constraint and e v v^T of another,
//
//	Tr(d u u^T X^{-1} e v v^T Y) = d e (u^T X^{-1} v)(u^T Y v).
//
// With all R factors of a block as the columns of U (n x R), the two
// R x R matrices of bilinear forms U^T X^{-1} U and U^T Y U are formed by
// GEMMs on column panels of width lrPanel (so that R x R is never
// stored). This dense route pays off when the factors are dense relative
// to n; the sparse route (addLowRankSparse) batches sparse products.

// lrPanel is the column width of the Gram panels.
const lrPanel = 256

// lowRank is the dense form of a block's factors.
type lowRank struct {
	r     int
	u     []float64 // n x r, row-major
	d     []float64 // weight of each factor
	owner []int     // constraint of each factor
}

// buildLowRank gathers the factors of the block's low-rank pieces.
func (pb *psdBlock) buildLowRank() *lowRank {
	lr := &lowRank{}
	for _, pc := range pb.lowrank {
		lr.r += len(pc.fac)
	}
	n := pb.n
	lr.u = make([]float64, n*lr.r)
	t := 0
	for _, pc := range pb.lowrank {
		for _, f := range pc.fac {
			for k, ix := range f.idx {
				lr.u[int(ix)*lr.r+t] = f.val[k]
			}
			lr.d = append(lr.d, f.d)
			lr.owner = append(lr.owner, pc.con)
			t++
		}
	}
	return lr
}

// factorsCheapAsEntries reports whether the block's factors should be
// written out as entries: when the sparse formulas on the expanded
// matrices cost at most four times the low-rank route, or under a
// millisecond per iteration anyway (by the cost model of schurcost.go).
//
// Entries are the more robust form on ill-conditioned problems: dY is
// formed from X^{-1} dX Y with dX built entry by entry, and a Schur
// complement built from the same products stays consistent with it to
// rounding, where the product form (u^T X^{-1} v)(u^T Y v) does not. On 60
// of nnbound's own certificate SDPs (quantised copies, whose optimal
// multipliers run off to infinity) 40 end optimal with entries, 30 with
// factors. For large blocks with many factors the low-rank route is
// orders of magnitude cheaper and is kept.
func (pb *psdBlock) factorsCheapAsEntries() bool {
	n := float64(pb.n)
	var pieces, rows, nz, r, nnz float64
	for _, pc := range pb.pieces {
		if len(pc.fac) == 0 {
			continue
		}
		pieces++
		for _, f := range pc.fac {
			k := float64(len(f.idx))
			r++
			nnz += k
			rows += k
			nz += k * k
		}
	}
	if r == 0 {
		return false
	}
	kbar := rows / pieces
	f3 := costScattered * nz * nz / 2
	f1 := pieces*(costGemmFlop*n*n*kbar+costPack*n*n/2) + costInnerEntry*nz*pieces/2
	entries := min(f1, f3)
	lowRank := min(costGemmFlop*(4*n*n*r+n*r*r), costAxpy*2*n*nnz+costBatchAxpy*r*nnz)
	return entries <= max(4*lowRank, expandBudget)
}

// expandBudget is the cost (in the model's nanoseconds per iteration)
// under which factors are written out whatever the low-rank route costs.
const expandBudget = 1e7

// lowRankDense reports whether the dense route is the cheaper for the
// block, by the cost model of schurcost.go.
func (pb *psdBlock) lowRankDense() bool {
	n := float64(pb.n)
	var r, nnz float64
	for _, pc := range pb.lowrank {
		for _, f := range pc.fac {
			r++
			nnz += float64(len(f.idx))
		}
	}
	if r == 0 {
		return false
	}
	dense, sparse := lowRankCosts(n, r, nnz)
	return dense < sparse
}

// lowRankCosts returns the modelled costs of the dense and the sparse
// low-rank route for r factors with nnz nonzeros in all in a block of
// order n: the Gram GEMMs, or the sparse products and batched axpys, and
// for both the r^2/2 pairs added to the Schur complement.
func lowRankCosts(n, r, nnz float64) (dense, sparse float64) {
	dense = costLRGemmFlop*(4*n*n*r+n*r*r) + costLRPair*r*r/2
	sparse = costAxpy*2*n*nnz + costBatchAxpy*r*nnz + costLRPairBat*r*r/2
	return dense, sparse
}

// addLowRankDense adds the factor-factor terms of the block through the
// Gram matrices U^T X^{-1} U and U^T Y U, on column panels. It uses the
// explicit X^{-1} that the directions use too (rather than the Cholesky
// factor): near the end X is so ill-conditioned that the two differ by
// far more than rounding, and a Schur complement built from one while dY
// is built from the other leaves an error in F(dY) = rd that no
// refinement mends. yIsXinv means Y = X^{-1} (the barrier Hessian).
func (s *schur) addLowRankDense(pb *psdBlock, lr *lowRank, xinv, y []float64, yIsXinv bool) {
	n, r := pb.n, lr.r
	w, v := s.lw[:n*r], s.lv[:n*r]
	gemm(false, false, n, r, n, 1, xinv, n, lr.u, r, 0, w, r)
	if !yIsXinv {
		gemm(false, false, n, r, n, 1, y, n, lr.u, r, 0, v, r)
	}
	for j0 := 0; j0 < r; j0 += lrPanel {
		nb := min(lrPanel, r-j0)
		rows := r - j0
		m1, m2 := s.lm1[:rows*nb], s.lm2[:rows*nb]
		// M[t, g] for t >= j0, g in [j0, j0+nb): U[:,j0:]^T (X^{-1} U)[:,panel].
		gemm(true, false, rows, nb, n, 1, lr.u[j0:], r, w[j0:], r, 0, m1, nb)
		if !yIsXinv {
			gemm(true, false, rows, nb, n, 1, lr.u[j0:], r, v[j0:], r, 0, m2, nb)
		} else {
			m2 = m1
		}
		for t := j0; t < r; t++ {
			s.addPairsRow(lr, t, j0, min(j0+nb, t+1), m1[(t-j0)*nb:], m2[(t-j0)*nb:])
		}
	}
}

// addPairsRow adds the terms of factor t with factors g0..g1-1 (g < t
// or g = t), whose bilinear forms are row1[g-g0] and row2[g-g0]. The
// factors are in constraint order (pieces are sorted by constraint), so
// their owners are at most t's: the terms go to row owner(t) of the lower
// triangle, summed per owner first.
func (s *schur) addPairsRow(lr *lowRank, t, g0, g1 int, row1, row2 []float64) {
	dt, ot := lr.d[t], lr.owner[t]
	brow := s.b[ot*s.ld : ot*s.ld+ot+1]
	for g := g0; g < g1; {
		og := lr.owner[g]
		acc := 0.0
		for ; g < g1 && lr.owner[g] == og; g++ {
			v := lr.d[g] * row1[g-g0] * row2[g-g0]
			if g != t && og == ot {
				v *= 2
			}
			acc += v
		}
		brow[og] += dt * acc
	}
}

// lrBatch is how many factors share one pass of the sparse route.
const lrBatch = 64

// addLowRankSparse adds the factor-factor terms through sparse products:
// for a batch of k factors u_t it forms X^{-1}u_t and Y u_t as the
// columns of two n x k matrices P and Q; then for every factor v from the
// batch on, v^T P and v^T Q (one axpy of length k per nonzero of v) give
// the bilinear forms of v with the whole batch at once. The factors v of
// a batch are shared among goroutines (ownerCuts), each adding to its own
// rows of B in the serial order, so that B's bits do not depend on
// GOMAXPROCS.
func (s *schur) addLowRankSparse(pb *psdBlock, xinv, y []float64) {
	n, fs := pb.n, pb.facs
	r := len(fs)
	var buf [maxWorkers + 1]int
	for t0 := 0; t0 < r; t0 += lrBatch {
		k := min(lrBatch, r-t0)
		p, q := s.lw[:n*k], s.lv[:n*k]
		pt, qt := s.lm1[:k*n], s.lm2[:k*n]
		batch := fs[t0 : t0+k]
		if w := workers(k * n / lrProductsPerWorker); w > 1 {
			share(evenCuts(buf[:0], k, w), func(lo, hi int) { batchProducts(batch, n, xinv, y, pt, qt, lo, hi) })
			share(evenCuts(buf[:0], n, w), func(lo, hi int) { transposeRows(k, n, pt, p, qt, q, lo, hi) })
		} else {
			batchProducts(batch, n, xinv, y, pt, qt, 0, k)
			transposeRows(k, n, pt, p, qt, q, 0, n)
		}
		cuts := ownerCuts(buf[:0], fs, t0, workers((r-t0)/lrPairsPerWorker))
		share(cuts, func(lo, hi int) { s.pairsSparse(fs, t0, k, p, q, lo, hi) })
	}
}

// lrProductsPerWorker is the fewest elements of X^{-1}U (n x k) per
// goroutine in a batch of addLowRankSparse. (A variable so that tests
// can share small problems.)
var lrProductsPerWorker = 1 << 14

// batchProducts sets rows [lo, hi) of pt and qt (k x n) to (X^{-1}u_j)^T
// and (Y u_j)^T for the factors u_j of the batch.
func batchProducts(batch []ownedFactor, n int, xinv, y, pt, qt []float64, lo, hi int) {
	clear(pt[lo*n : hi*n])
	clear(qt[lo*n : hi*n])
	for j := lo; j < hi; j++ {
		f := &batch[j]
		for a, ix := range f.idx {
			axpy(f.val[a], xinv[int(ix)*n:int(ix)*n+n], pt[j*n:j*n+n])
			axpy(f.val[a], y[int(ix)*n:int(ix)*n+n], qt[j*n:j*n+n])
		}
	}
}

// transposeRows sets rows [lo, hi) of p and q (n x k) from the columns of
// pt and qt (k x n).
func transposeRows(k, n int, pt, p, qt, q []float64, lo, hi int) {
	for j := 0; j < k; j++ {
		for i := lo; i < hi; i++ {
			p[i*k+j] = pt[j*n+i]
			q[i*k+j] = qt[j*n+i]
		}
	}
}

// lrPairsPerWorker is the fewest factors per goroutine in a batch of
// addLowRankSparse: fewer cost more to start than they save. (A variable
// so that tests can share small problems.)
var lrPairsPerWorker = 256

// pairsSparse adds the terms of the factors fs[lo:hi] with the batch
// fs[t0:t0+k], whose X^{-1}u and Y u are the columns of p and q (n x k).
func (s *schur) pairsSparse(fs []ownedFactor, t0, k int, p, q []float64, lo, hi int) {
	var acc1, acc2 [lrBatch]float64
	a1, a2 := acc1[:k], acc2[:k]
	for si := lo; si < hi; si++ {
		g := &fs[si]
		clear(a1)
		clear(a2)
		for l, ix := range g.idx {
			axpy(g.val[l], p[int(ix)*k:int(ix)*k+k], a1)
			axpy(g.val[l], q[int(ix)*k:int(ix)*k+k], a2)
		}
		// Factors are in constraint order, so owner(t) <= owner(si)
		// and the entries go to row owner(si) of the lower triangle.
		row := s.b[g.owner*s.ld:]
		for j := 0; j < min(k, si-t0+1); j++ {
			f := &fs[t0+j]
			val := f.d * g.d * a1[j] * a2[j]
			if t0+j != si && f.owner == g.owner {
				val *= 2
			}
			row[f.owner] += val
		}
	}
}

// ownerCuts appends to dst the cuts t0 = c_0 < c_1 < ... < c_q = len(fs)
// (q <= w) of the factors from t0 on into runs of about equal length,
// each cut moved forward to where the owner changes: factors of one
// owner, whose terms go to the same row of B, stay on one goroutine.
func ownerCuts(dst []int, fs []ownedFactor, t0, w int) []int {
	r := len(fs)
	dst = append(dst, t0)
	for c := 1; c < w; c++ {
		i := max(t0+(r-t0)*c/w, dst[len(dst)-1]+1)
		for i < r && fs[i].owner == fs[i-1].owner {
			i++
		}
		if i < r {
			dst = append(dst, i)
		}
	}
	return append(dst, r)
}

// factorProducts sets s.xu and s.yu to X^{-1}u and Y u for each factor u
// of pc, in consecutive slices of length n.
func (s *schur) factorProducts(n int, pc *piece, xinv, y []float64) {
	for t, f := range pc.fac {
		xu := s.xu[t*n : t*n+n]
		yu := s.yu[t*n : t*n+n]
		clear(xu)
		clear(yu)
		for a, ix := range f.idx {
			axpy(f.val[a], xinv[int(ix)*n:int(ix)*n+n], xu)
			axpy(f.val[a], y[int(ix)*n:int(ix)*n+n], yu)
		}
	}
}

// addCrossSparse adds the sparse-factor terms that no F1 row takes:
// for a piece pc with factors and a piece qc with a sparse part S (not
// F1), Tr(S X^{-1} uu^T Y) = Tr(uu^T X^{-1} S Y) = (X^{-1}u)^T S (Y u),
// twice when they are the same constraint (both orders of the product).
func (s *schur) addCrossSparse(pb *psdBlock, xinv, y []float64, withR0 bool) {
	if !pb.crossSparse && !(withR0 && pb.r0.form != formulaF1) {
		return
	}
	n := pb.n
	for _, pc := range pb.lowrank {
		s.factorProducts(n, pc, xinv, y)
		for _, qc := range pb.sparse {
			if qc.form == formulaF1 || (qc == pb.r0 && !withR0) {
				continue
			}
			v := 0.0
			for t, f := range pc.fac {
				xu := s.xu[t*n : t*n+n]
				yu := s.yu[t*n : t*n+n]
				w := 0.0
				for _, e := range qc.exp {
					w += e.v * xu[e.i] * yu[e.j]
				}
				v += f.d * w
			}
			if qc.con == pc.con {
				v *= 2
			}
			s.b[s.at(pc.con, qc.con)] += v
		}
	}
}

// addCrossF1 adds, in the F1 row of the sparse piece with G = X^{-1} S Y,
// the terms Tr(S X^{-1} d uu^T Y) = d u^T G u for the factors of every
// low-rank piece (twice for the piece's own constraint).
func (s *schur) addCrossF1(pb *psdBlock, pc *piece, g []float64) {
	n := pb.n
	for _, qc := range pb.lowrank {
		v := 0.0
		for _, f := range qc.fac {
			v += f.d * f.quad(g, n)
		}
		if qc.con == pc.con {
			v *= 2
		}
		s.b[s.at(pc.con, qc.con)] += v
	}
}
