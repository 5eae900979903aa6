package sdp

import (
	"math"
	"slices"
)

// The solver works on a model built once from the Problem: per block, the
// part of every constraint matrix that lies in it (a piece), with entries
// summed, moved to the upper triangle and sorted, and the constant F_0
// gathered alongside. Diagonal blocks and PSD blocks of order 1 become LP
// blocks (an order-1 PSD cone is the non-negative half-line).

// entry is one stored entry of a symmetric block: i <= j means the
// positions (i,j) and (j,i) both hold v.
type entry struct {
	i, j int32
	v    float64
}

// factor is the rank-one term d*u*u^T of a piece, u sparse.
type factor struct {
	d   float64
	idx []int32
	val []float64
}

// piece is the part of one constraint matrix inside one PSD block.
type piece struct {
	con  int     // constraint (0-based), or m for the residual direction R0
	ent  []entry // sparse part, upper triangle, sorted by (i, j)
	exp  []entry // ent expanded: both (i,j) and (j,i) for i != j, sorted by i
	rows []int32 // distinct indices of exp's rows, increasing
	fac  []factor
	form formula // Schur formula for the sparse part
}

// psdBlock is a dense PSD block of order n >= 2.
type psdBlock struct {
	id      int // index in Problem.Blocks
	n       int
	pieces  []*piece // every constraint touching the block, by constraint
	sparse  []*piece // pieces with a sparse part, plus R0, in Schur order
	lowrank []*piece // pieces with factors, in Schur order
	f0      []entry  // F_0 in this block
	r0      *piece   // -(F_0 + lambda I): the direction of the primal residual
	// lr is the dense form of the factors when the Schur complement takes
	// the dense route for them (nil for the sparse route).
	lr *lowRank
	// crossSparse is set when a piece with factors meets a sparse piece
	// other than R0 whose row is not F1.
	crossSparse bool
	// lift, when not nil, is the block's factors in its basis (lift.go):
	// apply, combine and the Schur complement go through it.
	lift  *lift
	byCon map[int]*piece // pieces by constraint, while the model is built
	facs  []ownedFactor  // the factors of lowrank, in order
}

// ownedFactor is a factor and the constraint it belongs to.
type ownedFactor struct {
	factor
	owner int
}

// lpBlock is a non-negative orthant of dimension n: a diagonal block, or
// PSD blocks of order 1 merged.
type lpBlock struct {
	n int
	// where[k] is (Problem block, index in block) of coordinate k.
	where []lpCoord
	// Column k of the constraint matrix, [F_1[k] ... F_m[k]], is
	// con[ptr[k]:ptr[k+1]] with values val[...], increasing con.
	ptr []int
	con []int32
	val []float64
	f0  []float64
}

type lpCoord struct{ block, index int }

// lpTriple is F_{con+1}[k] = v in the LP block, while the model is built.
type lpTriple struct {
	k   int
	con int32
	v   float64
}

// model is the solver's view of a Problem.
type model struct {
	m   int
	c   []float64
	psd []*psdBlock
	lp  *lpBlock // nil if there are no LP coordinates
	// psdOf[b] is the index in psd of Problem block b, or -1 for a block
	// whose coordinates are in lp.
	psdOf []int
	ntot  int // sum of the orders of all cones (the "n" of mu = X•Y/n)

	empty []bool // constraint i has a zero matrix

	// Norms used for scaling.
	normC    float64 // ||c||_2
	normF0   float64 // ||F_0||_F
	maxNormF float64 // max_i ||F_i||_F
	normF    []float64
}

// buildModel converts a validated problem.
func buildModel(p *Problem) *model {
	md := &model{m: len(p.C), c: slices.Clone(p.C)}
	blockPSD := make([]*psdBlock, len(p.Blocks))
	md.psdOf = make([]int, len(p.Blocks))
	lpIndex := make([]int, len(p.Blocks)) // first LP coordinate of a block
	nlp := 0
	for b, blk := range p.Blocks {
		md.ntot += blk.Size
		md.psdOf[b] = len(md.psd)
		if blk.Diagonal || blk.Size == 1 {
			md.psdOf[b] = -1
			lpIndex[b] = nlp
			nlp += blk.Size
			continue
		}
		pb := &psdBlock{id: b, n: blk.Size}
		blockPSD[b] = pb
		md.psd = append(md.psd, pb)
	}
	if nlp > 0 {
		md.lp = &lpBlock{n: nlp, where: make([]lpCoord, nlp), f0: make([]float64, nlp)}
		for b, blk := range p.Blocks {
			if blockPSD[b] == nil {
				for k := 0; k < blk.Size; k++ {
					md.lp.where[lpIndex[b]+k] = lpCoord{b, k}
				}
			}
		}
	}

	// Sparse parts, per constraint and block.
	var lpEnts []lpTriple
	for i, mat := range p.F {
		byBlock := map[int][]entry{}
		for _, e := range mat {
			if pb := blockPSD[e.Block]; pb == nil {
				k := lpIndex[e.Block] + e.I
				if i == 0 {
					md.lp.f0[k] += e.V
				} else {
					lpEnts = append(lpEnts, lpTriple{k, int32(i - 1), e.V})
				}
				continue
			}
			a, c := int32(e.I), int32(e.J)
			if a > c {
				a, c = c, a
			}
			byBlock[e.Block] = append(byBlock[e.Block], entry{a, c, e.V})
		}
		for b, ents := range byBlock {
			ents = canonicalEntries(ents)
			if i == 0 {
				blockPSD[b].f0 = ents
				continue
			}
			if len(ents) > 0 {
				pc := blockPSD[b].pieceFor(i - 1)
				pc.ent = ents
			}
		}
	}
	// Low-rank parts, and in blocks with a basis their lifted form.
	coefs := map[*psdBlock]map[int][]factor{}
	norms := map[*psdBlock][]float64{}
	for i, fs := range p.Factors {
		for _, f := range fs {
			if i == 0 || f.D == 0 {
				continue
			}
			pb := blockPSD[f.Block]
			if pb == nil {
				// Order-1 PSD block: d*u^2 on the single coordinate.
				for _, u := range f.U.Value {
					lpEnts = append(lpEnts, lpTriple{lpIndex[f.Block], int32(i - 1), f.D * u * u})
				}
				continue
			}
			fc := factor{d: f.D, idx: make([]int32, 0, len(f.U.Index)), val: make([]float64, 0, len(f.U.Index))}
			for k, ix := range f.U.Index {
				if f.U.Value[k] != 0 {
					fc.idx = append(fc.idx, int32(ix))
					fc.val = append(fc.val, f.U.Value[k])
				}
			}
			if len(fc.idx) == 0 {
				continue
			}
			pc := pb.pieceFor(i - 1)
			pc.fac = append(pc.fac, fc)
			if bs := p.basisOf(f.Block); bs != nil {
				if coefs[pb] == nil {
					coefs[pb] = map[int][]factor{}
					norms[pb] = vecNorms(bs)
				}
				coefs[pb][i-1] = append(coefs[pb][i-1], liftedFactor(fc, f.Coef, pb.n, norms[pb]))
			}
		}
	}
	if md.lp != nil {
		md.lp.setColumns(lpEnts)
	}
	for _, pb := range md.psd {
		pb.byCon = nil
		slices.SortFunc(pb.pieces, func(a, b *piece) int { return a.con - b.con })
		bs := p.basisOf(pb.id)
		lifting := bs != nil && liftPays(pb, len(bs.Vecs), coefs[pb])
		if !lifting && expandSmallFactors && pb.factorsCheapAsEntries() {
			for _, pc := range pb.pieces {
				for _, f := range pc.fac {
					pc.ent = append(pc.ent, f.entries()...)
				}
				pc.fac = nil
			}
		}
		for _, pc := range pb.pieces {
			pc.ent = canonicalEntries(pc.ent)
			pc.expand()
		}
		if lifting {
			pb.lift = newLift(pb, bs, coefs[pb])
		}
	}
	md.computeNorms()
	return md
}

// expandSmallFactors lets factorsCheapAsEntries write factors out as
// entries; tests turn it off to exercise the low-rank code.
var expandSmallFactors = true

// entries returns d u u^T as upper-triangle entries.
func (f *factor) entries() []entry {
	var out []entry
	for a, ia := range f.idx {
		for b, ib := range f.idx {
			if ia <= ib {
				out = append(out, entry{ia, ib, f.d * f.val[a] * f.val[b]})
			}
		}
	}
	return out
}

// pieceFor returns the piece of constraint con, creating it.
func (pb *psdBlock) pieceFor(con int) *piece {
	if pc := pb.byCon[con]; pc != nil {
		return pc
	}
	if pb.byCon == nil {
		pb.byCon = map[int]*piece{}
	}
	pc := &piece{con: con}
	pb.pieces = append(pb.pieces, pc)
	pb.byCon[con] = pc
	return pc
}

// canonicalEntries sorts upper-triangle entries, sums repeats and drops
// zeros.
func canonicalEntries(ents []entry) []entry {
	slices.SortFunc(ents, func(a, b entry) int {
		if a.i != b.i {
			return int(a.i - b.i)
		}
		return int(a.j - b.j)
	})
	out := ents[:0]
	for _, e := range ents {
		if n := len(out); n > 0 && out[n-1].i == e.i && out[n-1].j == e.j {
			out[n-1].v += e.v
			continue
		}
		out = append(out, e)
	}
	return slices.DeleteFunc(out, func(e entry) bool { return e.v == 0 })
}

// expand fills exp and rows from ent.
func (pc *piece) expand() {
	pc.exp = pc.exp[:0]
	for _, e := range pc.ent {
		pc.exp = append(pc.exp, e)
		if e.i != e.j {
			pc.exp = append(pc.exp, entry{e.j, e.i, e.v})
		}
	}
	slices.SortFunc(pc.exp, func(a, b entry) int {
		if a.i != b.i {
			return int(a.i - b.i)
		}
		return int(a.j - b.j)
	})
	pc.rows = pc.rows[:0]
	for _, e := range pc.exp {
		if n := len(pc.rows); n == 0 || pc.rows[n-1] != e.i {
			pc.rows = append(pc.rows, e.i)
		}
	}
}

// setColumns builds the column lists of the LP block from (k, con, v)
// triples, summing repeats and dropping zeros.
func (lb *lpBlock) setColumns(ents []lpTriple) {
	slices.SortFunc(ents, func(a, b lpTriple) int {
		if a.k != b.k {
			return a.k - b.k
		}
		return int(a.con - b.con)
	})
	var merged []lpTriple
	for _, e := range ents {
		if n := len(merged); n > 0 && merged[n-1].k == e.k && merged[n-1].con == e.con {
			merged[n-1].v += e.v
			continue
		}
		merged = append(merged, e)
	}
	merged = slices.DeleteFunc(merged, func(e lpTriple) bool { return e.v == 0 })
	lb.ptr = make([]int, lb.n+1)
	lb.con = make([]int32, len(merged))
	lb.val = make([]float64, len(merged))
	for t, e := range merged {
		lb.con[t], lb.val[t] = e.con, e.v
		lb.ptr[e.k+1]++
	}
	for k := 0; k < lb.n; k++ {
		lb.ptr[k+1] += lb.ptr[k]
	}
}

// emptyTol is the relative Frobenius norm below which a constraint
// matrix counts as zero: the Schur complement gets 1 on its diagonal,
// so that x_i moves only as c_i asks.
const emptyTol = 1e-12

// computeNorms fills the norms used for scaling and the empty flags.
func (md *model) computeNorms() {
	md.normF = make([]float64, md.m)
	sq := make([]float64, md.m)
	for _, pb := range md.psd {
		for _, pc := range pb.pieces {
			sq[pc.con] += pc.frobSq()
		}
		for _, e := range pb.f0 {
			w := e.v * e.v
			if e.i != e.j {
				w *= 2
			}
			md.normF0 += w
		}
	}
	if lb := md.lp; lb != nil {
		for k := 0; k < lb.n; k++ {
			for t := lb.ptr[k]; t < lb.ptr[k+1]; t++ {
				sq[lb.con[t]] += lb.val[t] * lb.val[t]
			}
			md.normF0 += lb.f0[k] * lb.f0[k]
		}
	}
	md.normF0 = math.Sqrt(md.normF0)
	md.empty = make([]bool, md.m)
	for i := range sq {
		md.normF[i] = math.Sqrt(sq[i])
		md.maxNormF = max(md.maxNormF, md.normF[i])
		md.normC += md.c[i] * md.c[i]
	}
	// A matrix this much smaller than the largest is rounding noise (a
	// certificate's cancelled terms): its Schur row would be noise too.
	for i := range sq {
		md.empty[i] = md.normF[i] <= emptyTol*md.maxNormF
	}
	md.normC = math.Sqrt(md.normC)
}

// frobSq returns the squared Frobenius norm of the piece's matrix,
// S + sum d u u^T, exactly.
func (pc *piece) frobSq() float64 {
	s := 0.0
	for _, e := range pc.exp {
		s += e.v * e.v
	}
	for r, f := range pc.fac {
		// <S, d u u^T> = d u^T S u, counted twice.
		s += 2 * f.d * pc.sparseQuad(f)
		for q, g := range pc.fac {
			if q < r {
				continue
			}
			dot := sparseDot(f.idx, f.val, g.idx, g.val)
			w := f.d * g.d * dot * dot
			if q != r {
				w *= 2
			}
			s += w
		}
	}
	return max(s, 0)
}

// sparseQuad returns u^T S u for the sparse part S.
func (pc *piece) sparseQuad(f factor) float64 {
	if len(pc.ent) == 0 {
		return 0
	}
	u := map[int32]float64{}
	for k, ix := range f.idx {
		u[ix] += f.val[k]
	}
	s := 0.0
	for _, e := range pc.exp {
		s += e.v * u[e.i] * u[e.j]
	}
	return s
}

// sparseDot returns the dot product of two sparse vectors.
func sparseDot(ai []int32, av []float64, bi []int32, bv []float64) float64 {
	s := 0.0
	for k, x := range ai {
		for l, y := range bi {
			if x == y {
				s += av[k] * bv[l]
			}
		}
	}
	return s
}
