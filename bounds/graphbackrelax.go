package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// relax steps through the relaxed nonlinear node k, and reports whether
// it kept lam: the coefficients of an elementwise node (each output's
// lines read the input of its index) replace lam in place.
func (w *backWork) relax(k int, lam []float64, sp [][2]int) (kept bool) {
	b := w.b
	rel := b.rel[k]
	ins := b.g.Nodes[k].Inputs
	v := ins[0]
	n, m := len(rel.up), b.g.Size(v)
	mag := b.mags[v]
	inPlace := rel.lowAt == nil && rel.upAt == nil && m == n
	dst := lam
	if !inPlace {
		dst = w.get(w.rows * m)
	}
	var dst2, mag2, out2 []float64 // the second input of a pair node
	if rel.lowB != nil {
		dst2, mag2 = w.get(w.rows*b.g.Size(ins[1])), b.mags[ins[1]]
	}
	relC, tinyC := 2*float64(rel.fanIn+1)*outward.Unit, float64(rel.fanIn)*outward.Tiny
	var free *nodeSlopes // the rows' own lines (graphslopes.go)
	if w.opt != nil {
		w.opt.record(k+1, lam)
		free = w.opt.nodes[k]
	}
	fast := inPlace && !b.reference && free == nil
	if fast {
		w.relaxInPlace(rel.packed(), lam, dst2, mag, mag2, sp, relC, tinyC)
	}
	for r := 0; r < w.rows && !fast; r++ {
		row, out := lam[r*n:(r+1)*n], dst[r*m:(r+1)*m]
		if dst2 != nil {
			out2 = dst2[r*len(mag2) : (r+1)*len(mag2)]
		}
		s, abs, perr := w.c[r], math.Abs(w.c[r]), 0.0
		for _, p := range sp {
			for i := p[0]; i < p[1]; i++ {
				l := row[i]
				if l == 0 {
					continue
				}
				ln, j, lb := rel.low[i], at(rel.lowAt, i), rel.lowB
				if l >= 0 {
					ln, j, lb = rel.up[i], at(rel.upAt, i), rel.upB
				}
				bv := 0.0
				if lb != nil {
					bv = lb[i]
				}
				if a, c, b2, ok := free.line(r, i, l); ok {
					ln, bv = line{a, c}, b2
				}
				t := l * ln.A
				switch {
				case inPlace:
					out[i] = t // out is row
				case t != 0:
					out[j] += t
				}
				if t != 0 {
					perr += (relC*math.Abs(t) + tinyC) * mag[j]
				}
				if bv != 0 {
					p := l * bv
					out2[j] += p
					perr += (relC*math.Abs(p) + tinyC) * mag2[j]
				}
				c := l * ln.C
				s += c
				abs += math.Abs(c)
			}
		}
		w.c[r] = s
		err := outward.AddUp(outward.DotErr(abs, n), outward.MulUp(perr, sumFactor(n)))
		w.e[r] = outward.AddUp(w.e[r], err)
	}
	band := w.band[k+1].to(b.g.Shape(k+1), b.g.Shape(v))
	if mp, ok := b.g.Nodes[k].Op.(*nn.MaxPool); ok {
		band = poolRows(mp.Pool2D, w.band[k+1])
	} else if rel.lowAt != nil {
		band = fullBand(b.g.Shape(v))
	}
	w.merge(v, dst, band)
	if dst2 != nil {
		w.merge(ins[1], dst2, band.to(b.g.Shape(v), b.g.Shape(ins[1])))
	}
	return inPlace
}

// relaxInPlace is relax's loop for an elementwise node, whose lines read
// the input of their own index: lam, on the node's output, becomes the
// coefficients on its first input in place, and those on the second
// input (a pair node) are added to dst2. pk holds the lines packed
// (graphRelax.packed). Rows are taken two at a time, so that the
// processor overlaps their sums, and the line and the error term of a
// product are picked without branches (an error term dropped where the
// product is zero adds +0); each row's sums add the same terms in the
// same order as one row at a time, so the bounds do not change.
func (w *backWork) relaxInPlace(pk, lam, dst2, mag, mag2 []float64, sp [][2]int, relC, tinyC float64) {
	n := len(lam) / w.rows
	var none []float64
	r := 0
	for ; r+1 < w.rows; r += 2 {
		row0, row1 := lam[r*n:(r+1)*n], lam[(r+1)*n:(r+2)*n]
		o0, o1 := none, none
		if dst2 != nil {
			o0, o1 = dst2[r*len(mag2):(r+1)*len(mag2)], dst2[(r+1)*len(mag2):(r+2)*len(mag2)]
		}
		s0, a0, p0 := w.c[r], math.Abs(w.c[r]), 0.0
		s1, a1, p1 := w.c[r+1], math.Abs(w.c[r+1]), 0.0
		for _, p := range sp {
			for i := p[0]; i < p[1]; i++ {
				// relaxEntry on both rows, written out (it is not inlined).
				if l := row0[i]; l != 0 {
					o := 6*i + 3*int(^math.Float64bits(l)>>63) // the upper line where l > 0
					ln := pk[o : o+3 : o+3]
					t := l * ln[0]
					row0[i] = t
					p0 += math.Float64frombits(math.Float64bits((relC*math.Abs(t)+tinyC)*mag[i]) & nonZero(t))
					if ln[2] != 0 {
						q := l * ln[2]
						o0[i] += q
						p0 += (relC*math.Abs(q) + tinyC) * mag2[i]
					}
					c := l * ln[1]
					s0, a0 = s0+c, a0+math.Abs(c)
				}
				if l := row1[i]; l != 0 {
					o := 6*i + 3*int(^math.Float64bits(l)>>63) // the upper line where l > 0
					ln := pk[o : o+3 : o+3]
					t := l * ln[0]
					row1[i] = t
					p1 += math.Float64frombits(math.Float64bits((relC*math.Abs(t)+tinyC)*mag[i]) & nonZero(t))
					if ln[2] != 0 {
						q := l * ln[2]
						o1[i] += q
						p1 += (relC*math.Abs(q) + tinyC) * mag2[i]
					}
					c := l * ln[1]
					s1, a1 = s1+c, a1+math.Abs(c)
				}
			}
		}
		w.endRelaxRow(r, n, s0, a0, p0)
		w.endRelaxRow(r+1, n, s1, a1, p1)
	}
	if r < w.rows {
		row, o := lam[r*n:(r+1)*n], none
		if dst2 != nil {
			o = dst2[r*len(mag2) : (r+1)*len(mag2)]
		}
		s, a, pe := w.c[r], math.Abs(w.c[r]), 0.0
		for _, p := range sp {
			for i := p[0]; i < p[1]; i++ {
				if l := row[i]; l != 0 {
					s, a, pe = relaxEntry(pk, row, o, mag, mag2, i, l, relC, tinyC, s, a, pe)
				}
			}
		}
		w.endRelaxRow(r, n, s, a, pe)
	}
}

// relaxEntry replaces the non-zero coefficient l = row[i] by those of
// entry i's line (the upper one where l > 0) and returns the row's sums
// updated: s of the constants, a of their magnitudes, pe of the rounding
// errors of the products.
func relaxEntry(pk, row, out2, mag, mag2 []float64, i int, l, relC, tinyC, s, a, pe float64) (float64, float64, float64) {
	o := 6 * i
	if l >= 0 {
		o += 3
	}
	ln := pk[o : o+3 : o+3]
	t := l * ln[0]
	row[i] = t
	if t != 0 {
		pe += (relC*math.Abs(t) + tinyC) * mag[i]
	}
	if ln[2] != 0 {
		p := l * ln[2]
		out2[i] += p
		pe += (relC*math.Abs(p) + tinyC) * mag2[i]
	}
	c := l * ln[1]
	return s + c, a + math.Abs(c), pe
}

// endRelaxRow stores the sums of row r (n coefficients) of relaxInPlace.
func (w *backWork) endRelaxRow(r, n int, s, a, pe float64) {
	w.c[r] = s
	err := outward.AddUp(outward.DotErr(a, n), outward.MulUp(pe, sumFactor(n)))
	w.e[r] = outward.AddUp(w.e[r], err)
}

// nonZero returns all ones where x != 0, else 0: a mask that drops a
// term of a sum of non-negative terms without a branch.
func nonZero(x float64) uint64 {
	var m uint64
	if x != 0 {
		m = ^uint64(0)
	}
	return m
}
