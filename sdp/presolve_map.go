package sdp

import "math"

// build sets ps.q from the original problem without the negligible
// entries, the removed rows, LP coordinates and constraints, and fills
// the maps back to the original.
func (ps *presolved) build(keepRow [][]bool, removedLP, dropped []bool) {
	p := ps.p
	first, _ := lpCoordIDs(p)
	// New index of every row and block; -1 when removed.
	newRow := make([][]int, len(p.Blocks))
	newBlock := make([]int, len(p.Blocks))
	q := &Problem{}
	for b, blk := range p.Blocks {
		newRow[b] = make([]int, blk.Size)
		var rows []int
		for j := range blk.Size {
			newRow[b][j] = -1
			if keepRow[b][j] && (first[b] < 0 || !removedLP[first[b]+j]) {
				newRow[b][j] = len(rows)
				rows = append(rows, j)
			}
		}
		newBlock[b] = -1
		if len(rows) > 0 {
			newBlock[b] = len(q.Blocks)
			q.Blocks = append(q.Blocks, Block{Size: len(rows), Diagonal: blk.Diagonal})
			ps.blocks = append(ps.blocks, b)
			ps.rows = append(ps.rows, rows)
		}
	}
	newCon := make([]int, len(p.C)+1) // by matrix index (0 is F_0)
	for i := range p.C {
		newCon[i+1] = -1
		if !dropped[i] {
			ps.cons = append(ps.cons, i)
			newCon[i+1] = len(ps.cons)
			q.C = append(q.C, p.C[i])
		}
	}
	q.F = make([]Matrix, len(q.C)+1)
	for i, mat := range p.F {
		t := newCon[i]
		if t < 0 {
			continue
		}
		for _, e := range mat {
			b := newBlock[e.Block]
			if b < 0 || ps.droppedEntry(e) {
				continue
			}
			r, c := newRow[e.Block][e.I], newRow[e.Block][e.J]
			if r < 0 || c < 0 {
				continue
			}
			q.F[t] = append(q.F[t], Entry{Block: b, I: r, J: c, V: e.V})
		}
	}
	if p.Factors != nil {
		q.Factors = make([][]Factor, len(q.C)+1)
		for i, fs := range p.Factors {
			t := newCon[i]
			if t < 0 || !ps.live[i] {
				continue
			}
			for _, f := range fs {
				b := newBlock[f.Block]
				if b < 0 {
					continue
				}
				umax := maxAbs(f.U.Value)
				g := Factor{Block: b, D: f.D}
				for k, ix := range f.U.Index {
					r := newRow[f.Block][ix]
					if r < 0 || ps.droppedComponent(f, k, umax) {
						continue
					}
					g.U.Index = append(g.U.Index, r)
					g.U.Value = append(g.U.Value, f.U.Value[k])
				}
				if len(g.U.Index) > 0 {
					g.Coef = mapCoef(f.Coef, p.Blocks[f.Block].Size, q.Blocks[b].Size, newRow[f.Block])
					q.Factors[t] = append(q.Factors[t], g)
				}
			}
		}
	}
	q.Bases = mapBases(p.Bases, newBlock, newRow)
	ps.q = q
}

// mapBases returns the bases of the blocks that are kept, their vectors
// on the kept rows.
func mapBases(bases []Basis, newBlock []int, newRow [][]int) []Basis {
	var out []Basis
	for _, bs := range bases {
		b := newBlock[bs.Block]
		if b < 0 {
			continue
		}
		nb := Basis{Block: b, Vecs: make([]SparseVec, len(bs.Vecs))}
		for j, v := range bs.Vecs {
			for k, ix := range v.Index {
				if r := newRow[bs.Block][ix]; r >= 0 {
					nb.Vecs[j].Index = append(nb.Vecs[j].Index, r)
					nb.Vecs[j].Value = append(nb.Vecs[j].Value, v.Value[k])
				}
			}
		}
		out = append(out, nb)
	}
	return out
}

// mapCoef maps a factor's basis coefficients from a block of order n to
// its reduction of order nq with rows newRow: unit vectors follow their
// rows (those of removed rows go), basis vectors keep their order.
func mapCoef(c SparseVec, n, nq int, newRow []int) SparseVec {
	var out SparseVec
	for k, ix := range c.Index {
		switch {
		case ix >= n:
			out.Index = append(out.Index, nq+ix-n)
		case newRow[ix] >= 0:
			out.Index = append(out.Index, newRow[ix])
		default:
			continue
		}
		out.Value = append(out.Value, c.Value[k])
	}
	return out
}

// restore maps the result of solving ps.q back to ps.p: x with the
// removed variables lifted or 0, Y with zeros where rows, coordinates or
// blocks were removed, and the objectives recomputed on p. A status that
// claims a solution or a certificate is kept only if the dual residual
// recomputed on p still meets its tolerance.
func (ps *presolved) restore(r *Result, set *Settings) {
	p := ps.p
	x := make([]float64, len(p.C))
	for t, i := range ps.cons {
		x[i] = r.X[t]
	}
	ps.lift(x, r.Status != DualInfeasible)
	y := make([][]float64, len(p.Blocks))
	for b, blk := range p.Blocks {
		if blk.Diagonal {
			y[b] = make([]float64, blk.Size)
		} else {
			y[b] = make([]float64, blk.Size*blk.Size)
		}
	}
	for qb, b := range ps.blocks {
		rows, src, n := ps.rows[qb], r.Y[qb], p.Blocks[b].Size
		if p.Blocks[b].Diagonal {
			for k, j := range rows {
				y[b][j] = src[k]
			}
			continue
		}
		nq := len(rows)
		for a, i := range rows {
			for c, j := range rows {
				y[b][i*n+j] = src[a*nq+c]
			}
		}
	}
	r.X, r.Y = x, y
	r.PrimalObjective = dot(p.C, x)
	r.DualObjective = matDot(p, 0, y)
	r.RelGap = relGap(r.PrimalObjective, r.DualObjective)
	if r.Status != Optimal && r.Status != NearOptimal {
		return
	}
	res, nc := 0.0, 0.0
	for i, c := range p.C {
		d := c - matDot(p, i+1, y)
		res += d * d
		nc += c * c
	}
	dinf := math.Sqrt(res) / (1 + math.Sqrt(nc))
	r.DualInfeasibility = max(r.DualInfeasibility, dinf)
	switch {
	case dinf <= set.FeasTol:
	case dinf <= nearFactor*set.FeasTol:
		r.Status = NearOptimal
	default:
		r.Status = NumericalTrouble
	}
}

// matDot returns F_i • Y for the matrix i of p (entries and factors) and
// Y in the layout of Result.Y.
func matDot(p *Problem, i int, y [][]float64) float64 {
	s := 0.0
	for _, e := range p.F[i] {
		if p.Blocks[e.Block].Diagonal {
			s += e.V * y[e.Block][e.I]
			continue
		}
		n := p.Blocks[e.Block].Size
		v := e.V * y[e.Block][e.I*n+e.J]
		if e.I != e.J {
			v *= 2
		}
		s += v
	}
	if p.Factors != nil {
		for _, f := range p.Factors[i] {
			n := p.Blocks[f.Block].Size
			yb := y[f.Block]
			q := 0.0
			for a, ia := range f.U.Index {
				for c, ib := range f.U.Index {
					q += f.U.Value[a] * f.U.Value[c] * yb[ia*n+ib]
				}
			}
			s += f.D * q
		}
	}
	return s
}
