package sdp

import "math"

// maxExpand is the largest number of indices of a factor that presolve
// writes out as entries; a factor with more counts as touching all its
// rows, and its constraint as having a PSD part.
const maxExpand = 64

// posKey is a position (i <= j) in a PSD block.
type posKey struct{ block, i, j int }

// psdParts returns, for each matrix F_i (i >= 1), its part in the PSD
// blocks written out as summed entries: the sparse entries plus the
// products d u_a u_b of its factors. Factors stored as pairs that cancel
// (d u u^T - d v v^T with u and v alike in a row) show as what they sum to.
// wide[i] is set when a factor was too large to write out.
func psdParts(p *Problem) (parts [][]Entry, wide []bool) {
	parts = make([][]Entry, len(p.F))
	wide = make([]bool, len(p.F))
	acc := map[posKey]float64{}
	for i := 1; i < len(p.F); i++ {
		clear(acc)
		for _, e := range p.F[i] {
			if isLP(p, e.Block) {
				continue
			}
			a, b := min(e.I, e.J), max(e.I, e.J)
			acc[posKey{e.Block, a, b}] += e.V
		}
		if p.Factors != nil {
			for _, f := range p.Factors[i] {
				if isLP(p, f.Block) {
					continue
				}
				if len(f.U.Index) > maxExpand {
					wide[i] = true
					continue
				}
				for s, ia := range f.U.Index {
					for t, ib := range f.U.Index {
						if ia <= ib {
							acc[posKey{f.Block, ia, ib}] += f.D * f.U.Value[s] * f.U.Value[t]
						}
					}
				}
			}
		}
		for k, v := range acc {
			parts[i] = append(parts[i], Entry{Block: k.block, I: k.i, J: k.j, V: v})
		}
	}
	return parts, wide
}

// markRows sets keep for the rows that the PSD parts of the F_i (i >= 1)
// touch with an entry above rowTol, and all rows of wide factors.
func (ps *presolved) markRows(keep [][]bool, parts [][]Entry, wide []bool) {
	for _, part := range parts {
		for _, e := range part {
			if math.Abs(e.V) > ps.rowTol {
				keep[e.Block][e.I], keep[e.Block][e.J] = true, true
			}
		}
	}
	for i, w := range wide {
		if !w {
			continue
		}
		for _, f := range ps.p.Factors[i] {
			if len(f.U.Index) > maxExpand {
				for _, ix := range f.U.Index {
					keep[f.Block][ix] = true
				}
			}
		}
	}
}

// psdLive reports, per matrix, whether its PSD part keeps an entry above
// the negligible size in rows that stay.
func (ps *presolved) psdLive(parts [][]Entry, wide []bool) []bool {
	live := make([]bool, len(parts))
	for i, part := range parts {
		live[i] = wide[i]
		for _, e := range part {
			if !ps.droppedEntry(e) {
				live[i] = true
				break
			}
		}
	}
	return live
}
