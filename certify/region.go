package certify

import (
	"math"
	"slices"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// cell is a closed interval of x1 values on which the second input is
// covered by one value: every x in the coordinate's range lies in a cell
// whose V is q(x) (see cells).
type cell struct {
	A, B, V float64
}

// maxCells is the largest number of quantisation cells per coordinate
// enumerated; coordinates with more stay relaxed (x2 in a box, |x2 - x1|
// bounded).
const maxCells = 4096

// grid is the quantiser of one input coordinate as cells sees it: constant
// between consecutive multiples of Step()/2, with the value Round(x) at x.
// quantise.Format is one (every rounding mode), and so is one coordinate
// of an int8 network's input quantiser (inputGrid).
type grid interface {
	Step() float64
	Round(x float64) float64
}

// cells returns closed cells covering [lo, hi] for the quantiser f: every
// x in [lo, hi] lies in a cell with V = q(x). The quantiser is constant
// between consecutive multiples of step/2; a grid point whose value
// differs from both neighbouring cells gets a cell of its own;
// neighbouring cells of equal value are merged. It returns nil when there
// would be more than maxCells, and when the multiples of step/2 in
// [lo, hi] are not counted exactly in float64 (beyond 2^52 of them from
// 0, where k++ no longer moves k, or lo/half overflowing).
func cells(f grid, lo, hi float64) []cell {
	half := f.Step() / 2
	first, last := math.Ceil(lo/half), math.Floor(hi/half)
	if !(last-first <= 2*maxCells) || !(math.Abs(first) <= 1<<52) || !(math.Abs(last) <= 1<<52) {
		return nil
	}
	pts := []float64{lo}
	for k := first; k <= last; k++ {
		if p := k * half; p > lo && p < hi {
			pts = append(pts, p)
		}
	}
	if hi > lo {
		pts = append(pts, hi)
	}
	var cs []cell
	for j := 0; j+1 < len(pts); j++ {
		cs = append(cs, cell{pts[j], pts[j+1], f.Round(pts[j] + (pts[j+1]-pts[j])/2)})
	}
	// Points not covered by a neighbouring cell of the same value.
	var out []cell
	for j, p := range pts {
		v := f.Round(p)
		left := j > 0 && cs[j-1].V == v
		right := j < len(cs) && cs[j].V == v
		if !left && !right {
			out = append(out, cell{p, p, v})
		}
		if j < len(cs) {
			out = append(out, cs[j])
		}
	}
	// Merge neighbours of equal value (the union of touching closed cells).
	merged := out[:0:0]
	for _, c := range out {
		if n := len(merged); n > 0 && merged[n-1].V == c.V && merged[n-1].B >= c.A {
			merged[n-1].B = max(merged[n-1].B, c.B)
			continue
		}
		merged = append(merged, c)
	}
	if len(merged) > maxCells {
		return nil
	}
	return merged
}

// region is a part of the input set: x1 in Box1 and x2 related by the
// pairing: Independent: x2 in Box2; SameInput: x2 = x1; QuantisedInput:
// per coordinate either one cell (x2 fixed to its value) or a run of cells
// (x2 = q(x1) in the box [q(lo), q(hi)]).
type region struct {
	Box1, Box2 spec.Box
	Pairing    spec.Pairing
	// Cells[i] are the quantisation cells of coordinate i still in the
	// region (QuantisedInput; nil when too many to enumerate).
	Cells [][]cell
	// next is the coordinate of Box1 to halve next, plus 1 (0: the
	// widest), and within bounds that hold on the region (a parent's, for
	// bounds.Options.Within; nil: none); the cheap refinement sets them
	// (regionResult).
	next   int
	within *bounds.PairBounds
}

// rootRegion returns the region of the whole input set.
func rootRegion(box spec.Box, o *task) region {
	r := region{Box1: cloneBox(box), Box2: cloneBox(box), Pairing: o.in.Pairing}
	if o.in.Pairing == spec.QuantisedInput {
		r.Cells = make([][]cell, box.Dim())
		for i := range r.Cells {
			r.Cells[i] = cells(o.in.Quant, box.Lo[i], box.Hi[i])
		}
		r.syncQuant(o.in.Quant)
	}
	return r
}

// syncQuant sets Box2 from Box1 and the cells.
func (r *region) syncQuant(f quantise.Format) {
	for i := range r.Box1.Lo {
		if cs := r.Cells[i]; len(cs) == 1 {
			r.Box2.Lo[i], r.Box2.Hi[i] = cs[0].V, cs[0].V
		} else {
			r.Box2.Lo[i], r.Box2.Hi[i] = f.Round(r.Box1.Lo[i]), f.Round(r.Box1.Hi[i])
		}
	}
}

// inputs returns the x2 modes of the region for the layout.
func (r *region) inputs() []qc.Input {
	in := make([]qc.Input, r.Box1.Dim())
	for i := range in {
		switch {
		case r.Pairing == spec.SameInput:
			in[i].Mode = qc.InputSame
		case r.Pairing == spec.QuantisedInput && len(r.Cells[i]) == 1:
			in[i] = qc.Input{Mode: qc.InputFixed, Value: r.Cells[i][0].V}
		case r.Pairing == spec.Independent && r.Box2.Lo[i] == r.Box2.Hi[i]:
			in[i] = qc.Input{Mode: qc.InputFixed, Value: r.Box2.Lo[i]}
		}
	}
	return in
}

// inputs1 returns the x1 modes of the region for the layout: a coordinate
// whose box has zero width is a constant.
func (r *region) inputs1() []qc.Input {
	in := make([]qc.Input, r.Box1.Dim())
	for i := range in {
		if r.Box1.Lo[i] == r.Box1.Hi[i] {
			in[i] = qc.Input{Mode: qc.InputFixed, Value: r.Box1.Lo[i]}
		}
	}
	return in
}

// allFixed reports whether every x2 coordinate is a constant.
func (r *region) allFixed() bool {
	for _, in := range r.inputs() {
		if in.Mode != qc.InputFixed {
			return false
		}
	}
	return true
}

// width returns the largest width of the region's boxes, scaled by the
// root's, over the coordinates that can still be split, and the
// coordinate and box (1 or 2) where it is attained.
func (r *region) widest(root region) (w float64, coord, which int) {
	w, coord, which = -1, -1, 0
	consider := func(b, rb spec.Box, wh int) {
		for i := range b.Lo {
			rw := rb.Hi[i] - rb.Lo[i]
			if rw <= 0 {
				continue
			}
			if d := (b.Hi[i] - b.Lo[i]) / rw; d > w {
				w, coord, which = d, i, wh
			}
		}
	}
	consider(r.Box1, root.Box1, 1)
	if r.Pairing == spec.Independent {
		consider(r.Box2, root.Box2, 2)
	}
	if r.Pairing == spec.QuantisedInput {
		// Prefer splitting runs of cells, fixing x2 is worth most, and
		// among them the widest: always splitting the first coordinate's
		// run would spend every split on it where there are many cells
		// (a fine grid in several dimensions).
		cw, ci := -1.0, -1
		for i, cs := range r.Cells {
			if rw := root.Box1.Hi[i] - root.Box1.Lo[i]; len(cs) > 1 && rw > 0 {
				if d := (r.Box1.Hi[i] - r.Box1.Lo[i]) / rw; d > cw {
					cw, ci = d, i
				}
			}
		}
		if ci >= 0 {
			return 2, ci, 1
		}
	}
	return w, coord, which
}

// split returns two regions covering r, halving its widest coordinate (for
// a run of quantisation cells, at the cell boundary nearest the middle).
// ok is false when nothing can be split.
func (r *region) split(root region, f quantise.Format) (a, b region, ok bool) {
	w, i, which := r.widest(root)
	if r.next > 0 && r.Pairing == spec.SameInput {
		w, i, which = 1, r.next-1, 1
	}
	if i < 0 || w <= 0 {
		return region{}, region{}, false
	}
	a, b = r.clone(), r.clone()
	a.within, b.within = r.within, r.within
	if r.Pairing == spec.QuantisedInput && len(r.Cells[i]) > 1 {
		cs := r.Cells[i]
		m := len(cs) / 2
		a.Cells[i], b.Cells[i] = slices.Clone(cs[:m]), slices.Clone(cs[m:])
		a.Box1.Hi[i], b.Box1.Lo[i] = cs[m-1].B, cs[m].A
		a.syncQuant(f)
		b.syncQuant(f)
		return a, b, true
	}
	box, ba, bb := &r.Box1, &a.Box1, &b.Box1
	if which == 2 {
		box, ba, bb = &r.Box2, &a.Box2, &b.Box2
	}
	mid := box.Lo[i]/2 + box.Hi[i]/2 // no overflow on the widest boxes
	if !(mid > box.Lo[i] && mid < box.Hi[i]) {
		return region{}, region{}, false
	}
	ba.Hi[i], bb.Lo[i] = mid, mid
	if r.Pairing == spec.SameInput {
		a.Box2, b.Box2 = cloneBox(a.Box1), cloneBox(b.Box1)
	}
	if r.Pairing == spec.QuantisedInput {
		if len(r.Cells[i]) == 1 {
			// Within one cell x2 stays fixed; the cell's x1 range shrinks.
			a.Cells[i] = []cell{{a.Box1.Lo[i], a.Box1.Hi[i], r.Cells[i][0].V}}
			b.Cells[i] = []cell{{b.Box1.Lo[i], b.Box1.Hi[i], r.Cells[i][0].V}}
		}
		a.syncQuant(f)
		b.syncQuant(f)
	}
	return a, b, true
}

// clone returns a deep copy of r.
func (r *region) clone() region {
	c := region{Box1: cloneBox(r.Box1), Box2: cloneBox(r.Box2), Pairing: r.Pairing}
	if r.Cells != nil {
		c.Cells = make([][]cell, len(r.Cells))
		for i, cs := range r.Cells {
			c.Cells[i] = slices.Clone(cs)
		}
	}
	return c
}

func cloneBox(b spec.Box) spec.Box {
	return spec.Box{Lo: slices.Clone(b.Lo), Hi: slices.Clone(b.Hi)}
}
