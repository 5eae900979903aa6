package sdp

// The Schur complement of the HKM direction,
//
//	B_ij = sum over blocks of Tr(F_i X^{-1} F_j Y),
//
// is assembled block by block into the lower triangle of an (m+1) x (m+1)
// row-major array. Row m holds Tr(R0 X^{-1} F_j Y) for the direction R0
// of the primal residual, which the right-hand side needs: treating R0 as
// one more constraint gets it from the same formulas for the price of one
// more row.

// schur holds the Schur complement and the buffers of its assembly.
type schur struct {
	m, ld int
	b     []float64 // (m+1) x (m+1); lower triangle used
	diag  []float64 // diagonal of B saved before factorisation
	shift float64   // diagonal shift of the last factorisation

	// Assembly buffers, sized for the largest block.
	p, q, g []float64 // F1: (F_p Y)[K,:], X^{-1}[K,:], G; F2: P, X^{-1}[:,K], P^T
	xu, yu  []float64 // low rank: X^{-1} u and Y u for each factor of a row
	lw, lv  []float64 // low rank, dense route: Lx^{-1} U and Ly^T U
	lm1     []float64 // low rank, dense route: panels of the Gram matrices
	lm2     []float64
	gs, acc []float64 // F1 batches: packed symmetrised G's, inner products
	pos     []int32   // position of an index in a piece's rows
	tmp     []float64 // solve: residual of the refinement
}

// newSchur allocates the Schur complement of md.
func newSchur(md *model) *schur {
	m := md.m
	s := &schur{m: m, ld: m + 1, b: make([]float64, (m+1)*(m+1)),
		diag: make([]float64, m), tmp: make([]float64, m)}
	var pq, gg, gsz, fac, nmax, lw, lm int
	for _, pb := range md.psd {
		if pb.lift != nil {
			pb = pb.lift.blk
		}
		n := pb.n
		nmax = max(nmax, n)
		for _, pc := range pb.sparse {
			switch pc.form {
			case formulaF1:
				pq = max(pq, n*len(pc.rows))
				gg = max(gg, n*n)
				gsz = max(gsz, n*(n+1)/2*min(f1Batch, len(pb.sparse)))
			case formulaF2:
				pq = max(pq, n*len(pc.rows))
				gg = max(gg, n*len(pc.rows))
			}
		}
		for _, pc := range pb.lowrank {
			fac = max(fac, n*len(pc.fac))
		}
		if lr := pb.lr; lr != nil {
			lw = max(lw, n*lr.r)
			lm = max(lm, lr.r*min(lr.r, lrPanel))
		} else if len(pb.facs) > 0 {
			lw = max(lw, n*lrBatch)
			lm = max(lm, n*lrBatch)
		}
	}
	s.p, s.q, s.g = make([]float64, pq), make([]float64, pq), make([]float64, gg)
	s.xu, s.yu = make([]float64, fac), make([]float64, fac)
	s.lw, s.lv = make([]float64, lw), make([]float64, lw)
	s.lm1, s.lm2 = make([]float64, lm), make([]float64, lm)
	s.gs, s.acc = make([]float64, gsz), make([]float64, max(f1Batch, lrBatch))
	s.pos = make([]int32, nmax)
	return s
}

// at returns the index of B's entry (i, j) in the lower triangle.
func (s *schur) at(i, j int) int {
	if i < j {
		i, j = j, i
	}
	return i*s.ld + j
}

// assemble computes B (and its row m when withR0) from the current
// X^{-1} and Y, with lx and ly the Cholesky factors of X and Y (ly nil
// when Y is X^{-1}). lpD is Y/X on the LP coordinates, r0lp is R0 there.
func (s *schur) assemble(md *model, xinv, y, lx blockMat, ly *blockMat, lpD, r0lp []float64, withR0 bool) {
	clear(s.b)
	for k, pb := range md.psd {
		var lyk []float64
		if ly != nil {
			lyk = ly.psd[k]
		}
		if lf := pb.lift; lf != nil {
			xl := lf.liftMat(pb.n, xinv.psd[k], lf.m1)
			yl := lf.liftMat(pb.n, y.psd[k], lf.m2)
			s.addPSD(lf.blk, xl, yl, nil, lyk, withR0)
			continue
		}
		s.addPSD(pb, xinv.psd[k], y.psd[k], lx.psd[k], lyk, withR0)
	}
	if md.lp != nil {
		s.addLP(md.lp, lpD, r0lp, withR0)
	}
	for i, e := range md.empty {
		if e {
			s.b[i*s.ld+i] = 1
		}
	}
}

// addPSD adds one PSD block's contribution.
func (s *schur) addPSD(pb *psdBlock, xinv, y, lx, ly []float64, withR0 bool) {
	for p := 0; p < len(pb.sparse); p++ {
		pc := pb.sparse[p]
		if pc == pb.r0 && !withR0 {
			continue
		}
		rest := pb.sparse[p:]
		switch pc.form {
		case formulaF1:
			// A run of F1 rows is done in batches (see rowsF1).
			k := 1
			for k < f1Batch && p+k < len(pb.sparse) && pb.sparse[p+k].form == formulaF1 &&
				(pb.sparse[p+k] != pb.r0 || withR0) {
				k++
			}
			s.rowsF1(pb, rest, k, xinv, y, withR0)
			p += k - 1
		case formulaF2:
			s.rowF2(pb, pc, rest, xinv, y, withR0)
		default:
			s.rowF3(pb, pc, rest, xinv, y, withR0)
		}
	}
	if len(pb.lowrank) == 0 {
		return
	}
	if pb.lr != nil {
		s.addLowRankDense(pb, pb.lr, xinv, y, ly == nil)
	} else {
		s.addLowRankSparse(pb, xinv, y)
	}
	s.addCrossSparse(pb, xinv, y, withR0)
}

// rowF3 computes B_pq = sum v w X^{-1}[b,c] Y[a,d] over (a,b,v) in F_p and
// (c,d,w) in F_q, both expanded.
func (s *schur) rowF3(pb *psdBlock, pc *piece, rest []*piece, xinv, y []float64, withR0 bool) {
	n := pb.n
	for _, qc := range rest {
		if qc == pb.r0 && !withR0 {
			continue
		}
		v := 0.0
		for _, e := range pc.exp {
			xr := xinv[int(e.j)*n : int(e.j)*n+n]
			yr := y[int(e.i)*n : int(e.i)*n+n]
			t := 0.0
			for _, f := range qc.exp {
				t += f.v * xr[f.i] * yr[f.j]
			}
			v += e.v * t
		}
		s.b[s.at(pc.con, qc.con)] += v
	}
}

// productRows sets P (k x n) to the rows K of F_p Y, where K = pc.rows,
// and records the position of each row index in s.pos.
func (s *schur) productRows(n int, pc *piece, y []float64) []float64 {
	k := len(pc.rows)
	for t, r := range pc.rows {
		s.pos[r] = int32(t)
	}
	p := s.p[:k*n]
	clear(p)
	for _, e := range pc.exp {
		t := int(s.pos[e.i])
		axpy(e.v, y[int(e.j)*n:int(e.j)*n+n], p[t*n:t*n+n])
	}
	return p
}

// rowF2 forms (F_p Y)[K,:] and X^{-1}[:,K], both transposed to n x k, and
// each needed G[c,d] as a dot product of length k.
func (s *schur) rowF2(pb *psdBlock, pc *piece, rest []*piece, xinv, y []float64, withR0 bool) {
	n, k := pb.n, len(pc.rows)
	p := s.productRows(n, pc, y)
	pt, qt := s.g[:n*k], s.q[:n*k]
	for t := 0; t < k; t++ {
		for d, v := range p[t*n : t*n+n] {
			pt[d*k+t] = v
		}
	}
	for c := 0; c < n; c++ {
		row := xinv[c*n : c*n+n]
		dst := qt[c*k : c*k+k]
		for t, r := range pc.rows {
			dst[t] = row[r]
		}
	}
	for _, qc := range rest {
		if qc == pb.r0 && !withR0 {
			continue
		}
		v := 0.0
		for _, f := range qc.ent {
			i, j := int(f.i), int(f.j)
			g := dot(qt[i*k:i*k+k], pt[j*k:j*k+k])
			if i != j {
				g += dot(qt[j*k:j*k+k], pt[i*k:i*k+k])
			}
			v += f.v * g
		}
		s.b[s.at(pc.con, qc.con)] += v
	}
}

// f1Batch is how many F1 rows share one pass over the later pieces.
const f1Batch = 64

// rowsF1 does the F1 rows of the first k pieces of rest. For each, G =
// X^{-1}[:,K] (F_p Y)[K,:] comes from one GEMM; the symmetrised upper
// triangle of G goes into column t of gs (packed positions x k). Then one
// pass over the entries (i,j,w) of the later pieces adds w gs[(i,j), :]
// to their k inner products F_q • G_t: contiguous axpys instead of
// scattered reads of G. Row t pairs only with pieces from its own
// position on.
func (s *schur) rowsF1(pb *psdBlock, rest []*piece, k int, xinv, y []float64, withR0 bool) {
	n := pb.n
	if k < 4 {
		// Too few rows to pay for the packing: read G directly.
		for t, pc := range rest[:k] {
			g := s.formG(n, pc, xinv, y)
			s.addCrossF1(pb, pc, g)
			for _, qc := range rest[t:] {
				if qc != pb.r0 || withR0 {
					s.b[s.at(pc.con, qc.con)] += entriesDot(qc.ent, g, n)
				}
			}
		}
		return
	}
	gs := s.gs[:n*(n+1)/2*k]
	for t, pc := range rest[:k] {
		g := s.formG(n, pc, xinv, y)
		s.addCrossF1(pb, pc, g)
		pos := 0
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := g[i*n+j]
				if i != j {
					v += g[j*n+i]
				}
				gs[pos*k+t] = v
				pos++
			}
		}
	}
	acc := s.acc[:k]
	for qi, qc := range rest {
		if qc == pb.r0 && !withR0 {
			continue
		}
		clear(acc)
		for _, e := range qc.ent {
			i, j := int(e.i), int(e.j)
			pos := i*n - i*(i-1)/2 + j - i
			axpy(e.v, gs[pos*k:pos*k+k], acc)
		}
		for t := 0; t < min(k, qi+1); t++ {
			s.b[s.at(rest[t].con, qc.con)] += acc[t]
		}
	}
}

// formG returns G = X^{-1} F_p Y as X^{-1}[:,K] (F_p Y)[K,:], one GEMM.
func (s *schur) formG(n int, pc *piece, xinv, y []float64) []float64 {
	k := len(pc.rows)
	p := s.productRows(n, pc, y)
	q := s.q[:k*n]
	for t, r := range pc.rows {
		copy(q[t*n:t*n+n], xinv[int(r)*n:int(r)*n+n])
	}
	g := s.g[:n*n]
	// G = Q^T P, with Q = X^{-1}[K,:] = (X^{-1}[:,K])^T.
	gemm(true, false, n, n, k, 1, q, n, p, n, 0, g, n)
	return g
}

// addLP adds sum_k F_i[k] F_j[k] Y_k/X_k over the LP coordinates.
func (s *schur) addLP(lb *lpBlock, d, r0 []float64, withR0 bool) {
	rowM := s.m * s.ld
	for k := 0; k < lb.n; k++ {
		cs := lb.con[lb.ptr[k]:lb.ptr[k+1]]
		vs := lb.val[lb.ptr[k]:lb.ptr[k+1]]
		dk := d[k]
		for a, ca := range cs {
			w := vs[a] * dk
			row := s.b[int(ca)*s.ld:]
			for b := 0; b <= a; b++ {
				row[cs[b]] += w * vs[b]
			}
		}
		if withR0 && r0[k] != 0 {
			w := r0[k] * dk
			for a, ca := range cs {
				s.b[rowM+int(ca)] += w * vs[a]
			}
		}
	}
}
