package certify

import (
	"context"
	"math"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// The cases of an int8 network's input quantiser.
//
// On the same input x, a network g with an input quantiser Q (an int8
// copy: nn.Network.Input) computes g(x) = h(Q(x)): it depends on x only
// through the grid point Q(x). Per coordinate, Q is constant on the cells
// of its grid (cells: the open steps, and the jump points where the value
// differs from both sides). On a region where Q takes few values, the
// region is bounded case by case: for each combination c of one cell per
// coordinate, the other network f on the part of the box in those cells
// (bounds.Single; beyond maxInputCases cases, f's affine bounds on the
// region maximised over the part, bounds.Linear) against g at one point
// x_c of them (bounds.Points), whose value g(x_c) is g's on the whole part. The cases cover the box, each x in the cells
// of its own value, so the largest case bound holds on the region. Bound
// propagation over the whole region would instead see Q's two values at
// every jump inside it, and the rounding noise of all of g's quantisers
// behind it, however small the region.
//
// Each cell is widened by 2^-40 (|end| + s) at both ends, so that an input
// whose float64 evaluation of x / s lands on the other side of a jump
// than x does is still in a cell of its value (both neighbouring cells
// contain it). With requantisation slack the input quantiser is not a
// function of x (a kernel may round it a step away): no cases then.

// maxInputCases is the largest number of combinations of cells whose
// other network is bounded case by case (bounds.Single on each part).
const maxInputCases = 16

// maxCellCases is the largest number of combinations of cells bounded at
// all: beyond maxInputCases the other network is bounded on each part by
// its affine bounds on the whole region (bounds.Linear), which costs one
// back-substitution for the region and a few operations per part, and the
// quantised network by its value at one point of the part. Each case
// costs about a point evaluation of the quantised network (Points.At),
// so a piece of many cases costs as many propagations of small pieces,
// whose affine bounds of the other network are tighter: at 16384 the
// cases took half of the 4-input controller's CPU and its refinement
// bounded 163 pieces a CPU second, at 4096 287, to a tighter bound
// (docs/notes/2026-12-int8-pieces.md).
const maxCellCases = 1 << 12

// cellMargin is the relative widening of an input cell.
const cellMargin = 0x1p-40

// inputGrid is coordinate i of an input quantiser as a grid of cells.
type inputGrid struct {
	q *nn.Quantiser
	i int
}

// Step returns the quantiser's scale.
func (g inputGrid) Step() float64 {
	s, _ := g.q.At(g.i)
	return s
}

// Round returns the quantiser's value at x, as the network computes it.
func (g inputGrid) Round(x float64) float64 { return g.q.Apply(g.i, x) }

// inputCases returns the bounds of the region r by the cases of an input
// quantiser (see above), or nil when they do not apply (caseCells) or
// when there are more than maxEagerCases of them and o.deferCells is set
// (refine bounds such a region case by case only when it is about to be
// split: laterCases).
func inputCases(ctx context.Context, f1, f2 *nn.Network, r *region, o *task, opts bounds.Options) (*regionBounds, error) {
	f, g, flip, cs, n := caseCells(f1, f2, r, o)
	if n == 0 || (n > maxEagerCases && o.deferCells) {
		return nil, nil
	}
	box := r.Box1
	pts, err := bounds.NewPoints(g, opts)
	if err != nil {
		return nil, err
	}
	var aff *bounds.Affine
	if n > maxInputCases {
		if aff, err = bounds.Linear(f, box, opts); err != nil {
			return nil, err
		}
	}
	rb := &regionBounds{Output: make([]bounds.Interval, f.OutputSize())}
	for j := range rb.Output {
		rb.Output[j] = bounds.Interval{Lo: math.Inf(1), Hi: math.Inf(-1)}
	}
	idx := make([]int, len(cs))
	part := spec.Box{Lo: make([]float64, len(cs)), Hi: make([]float64, len(cs))}
	x := make([]float64, len(cs))
	for range n {
		if !inputCase(g.Input, cs, idx, box, part, x) {
			return nil, nil
		}
		var of []bounds.Interval
		if aff != nil {
			of = aff.On(part)
		} else {
			bf, err := bounds.SingleContext(ctx, f, part, opts)
			if err != nil {
				return nil, err
			}
			of = bf.Post[len(bf.Post)-1]
		}
		d := diffOf(of, pts.At(x), flip)
		for j := range d {
			rb.Output[j] = rb.Output[j].Hull(d[j])
		}
		rb.Norm2 = max(rb.Norm2, enclosureValue(d, nil, 0, spec.Quantity{Norm: spec.Norm2}))
		if o.q.C != nil {
			m := bounds.Interval{}
			for j, c := range o.q.C {
				m = m.Add(bounds.Point(c).Scale(d[j]))
			}
			if rb.Margin == nil {
				rb.Margin = &m
			}
			*rb.Margin = rb.Margin.Hull(m)
		}
		next(idx, cs)
	}
	return rb, nil
}

// caseCells returns the cells cs of the region r for the cases of an
// input quantiser and their number of combinations n, with g the network
// that has the input quantiser, f the other, and flip set when g is f1;
// n is 0 when the cases do not apply: a pairing other than SameInput,
// requantisation slack, not exactly one network with an input quantiser,
// more than maxCellCases combinations of cells, or more than
// maxInputCases when the other network is quantised too (it has no
// affine bounds).
func caseCells(f1, f2 *nn.Network, r *region, o *task) (f, g *nn.Network, flip bool, cs [][]cell, n int) {
	if r.Pairing != spec.SameInput || o.RequantSlack != 0 || (f1.Input == nil) == (f2.Input == nil) {
		return nil, nil, false, nil, 0
	}
	f, g, flip = f1, f2, f1.Input != nil
	if flip {
		f, g = f2, f1
	}
	box := r.Box1
	cs = make([][]cell, box.Dim())
	n = 1
	for i := range cs {
		cs[i] = cells(inputGrid{g.Input, i}, box.Lo[i], box.Hi[i])
		n *= len(cs[i])
		if n == 0 || n > maxCellCases {
			return nil, nil, false, nil, 0
		}
	}
	if n > maxInputCases && f.Quantised() {
		return nil, nil, false, nil, 0
	}
	return f, g, flip, cs, n
}

// laterCases reports whether inputCases with o.deferCells left the
// region r to be bounded case by case later: it has more than
// maxEagerCases cases, at most maxCellCases.
func laterCases(f1, f2 *nn.Network, r *region, o *task) bool {
	_, _, _, _, n := caseCells(f1, f2, r, o)
	return n > maxEagerCases
}

// maxEagerCases is the largest number of cases that inputCases bounds
// even with o.deferCells: about the cost of one bound propagation of a
// small network (some 15 us a case on the controller, 4-32-32-2).
const maxEagerCases = 1024

// inputCase sets part to the part of box in the cells cs[i][idx[i]]
// (widened by cellMargin) and x to a point of those cells, checking that
// q gives x the cells' values; it returns false if it does not.
func inputCase(q *nn.Quantiser, cs [][]cell, idx []int, box, part spec.Box, x []float64) bool {
	for i, k := range idx {
		c := cs[i][k]
		s, _ := q.At(i)
		part.Lo[i] = max(box.Lo[i], c.A-cellMargin*(math.Abs(c.A)+s))
		part.Hi[i] = min(box.Hi[i], c.B+cellMargin*(math.Abs(c.B)+s))
		x[i] = c.A/2 + c.B/2
		if q.Apply(i, x[i]) != c.V {
			return false
		}
	}
	return true
}

// next advances idx to the next combination of one cell per coordinate
// (the last coordinate fastest), wrapping to all zeros after the last.
func next(idx []int, cs [][]cell) {
	for i := len(idx) - 1; i >= 0; i-- {
		if idx[i]++; idx[i] < len(cs[i]) {
			return
		}
		idx[i] = 0
	}
}

// diffOf returns the enclosures of g_j - f_j from those of f's outputs
// (of) and g's (og), or of f_j - g_j with flip.
func diffOf(of, og []bounds.Interval, flip bool) []bounds.Interval {
	d := make([]bounds.Interval, len(of))
	for j := range d {
		if flip {
			d[j] = of[j].Sub(og[j])
		} else {
			d[j] = og[j].Sub(of[j])
		}
	}
	return d
}
