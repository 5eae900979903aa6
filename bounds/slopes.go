package bounds

import (
	"github.com/nnbound/nnbound/nn"
)

// Free relaxation lines.
//
// Where a piecewise-linear activation with its kink at 0 (ReLU, leaky ReLU)
// has a pre-activation bound [l, u] with l < 0 < u, one of its two
// relaxation lines is free: with the slopes sL (left) and sR = 1 (right)
// of its pieces,
//
//	a z <= phi(z)  for all real z, every a in [sL, sR]   (sL <= sR, convex)
//	a z >= phi(z)  for all real z, every a in [sR, sL]   (sL >= sR, concave)
//
// exactly, with no offset and no rounding (a z and phi(z) are both
// products of z by a slope between the two). The other line is the chord,
// which is the tightest one. So the back-substitution of each target may
// use its own slope a for every such neuron (alpha-CROWN): the bound is
// sound for every a in the range, and an optimiser only chooses among
// sound bounds.

// freeLines describes the free lines of one layer: side[i] is -1 when the
// lower line of neuron i is free, +1 when its upper line is, 0 when
// neither; its slope may be anything in [lo[i], hi[i]].
type freeLines struct {
	side   []int8
	lo, hi []float64
	count  int // neurons with a free line
}

// newFreeLines returns the free lines of activation a on the
// pre-activation bounds pre.
func newFreeLines(a nn.Activation, pre []Interval) freeLines {
	fl := freeLines{side: make([]int8, len(pre)), lo: make([]float64, len(pre)), hi: make([]float64, len(pre))}
	var left float64
	switch a.Kind {
	case nn.ReLU:
	case nn.LeakyReLU:
		left = a.Alpha
	default:
		return fl
	}
	if left == 1 {
		return fl
	}
	for i, x := range pre {
		if !(x.Lo < 0 && x.Hi > 0) {
			continue
		}
		fl.count++
		if left < 1 {
			fl.side[i], fl.lo[i], fl.hi[i] = -1, left, 1
		} else {
			fl.side[i], fl.lo[i], fl.hi[i] = 1, 1, left
		}
	}
	return fl
}

// rowSlopes gives each row r of a linear form its own slope s[r*n+i] for
// the free line of variable i of one level (freeLines).
type rowSlopes struct {
	n    int
	free *freeLines
	s    []float64
}

// newRowSlopes returns slopes for rows rows, each initialised to the slope
// on variable i of the level's own bound of variable i on the free side
// (rel), clamped to its range.
func newRowSlopes(fl *freeLines, rel stepRelax, rows int) *rowSlopes {
	n := len(fl.side)
	rs := &rowSlopes{n: n, free: fl, s: getFloats(rows*n, true)}
	for i, sd := range fl.side {
		if sd == 0 {
			continue
		}
		bd := rel.Lower[i]
		if sd > 0 {
			bd = rel.Upper[i]
		}
		a := 0.0
		for _, t := range bd.terms {
			if t.col == i {
				a = t.coef
			}
		}
		a = min(max(a, fl.lo[i]), fl.hi[i])
		for r := range rows {
			rs.s[r*n+i] = a
		}
	}
	return rs
}

// releaseSlopes gives the storage of the slopes ov back to the pool
// (getFloats) once the back-substitution that used them is done: the
// optimiser's slopes were a tenth of the bytes a node of verify's branch
// and bound allocated. None of ov may be used after.
func releaseSlopes(ov []*rowSlopes) {
	for _, o := range ov {
		if o != nil {
			putFloats(o.s)
			o.s = nil
		}
	}
}

// slopeRow is one row of a rowSlopes (rowSlopes.row), for the inner loops
// over a row's variables: the lookups common to the row are done once.
type slopeRow struct {
	side      []int8
	s, lo, hi []float64
}

// row returns row r of o; a nil o gives a row with no free lines.
func (o *rowSlopes) row(r int) slopeRow {
	if o == nil {
		return slopeRow{}
	}
	n := o.n
	return slopeRow{side: o.free.side[:n], s: o.s[r*n : (r+1)*n], lo: o.free.lo[:n], hi: o.free.hi[:n]}
}

// at returns the slope of the row's line through the origin for variable
// i when the side wanted (upper or lower) is free, clamped to its range,
// so that the line is sound whatever the slopes hold (NaN falls back to
// the layer's line).
func (o *slopeRow) at(i int, upper bool) (float64, bool) {
	if i >= len(o.side) {
		return 0, false
	}
	sd := o.side[i]
	if sd == 0 || (sd > 0) != upper {
		return 0, false
	}
	a := o.s[i]
	if a != a { // NaN
		return 0, false
	}
	return min(max(a, o.lo[i]), o.hi[i]), true
}
