package bounds

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// Margin returns an enclosure of c^T (f2(x2) - f1(x1)) over the input pairs
// pb was computed for: one output's difference (c a unit vector), or that
// of a margin between outputs. With MethodSymbolic or MethodOptimised and
// networks of equal widths it back-substitutes c^T delta through both
// networks (MethodOptimised: with slopes optimised for c), which is
// tighter than combining the per-output intervals (it is never looser).
// For a split box it is the hull of the pieces' margins, intersected with
// the whole box's.
func (pb *PairBounds) Margin(c []float64) (Interval, error) {
	return pb.margin(c, true)
}

// margin is Margin, with the slopes optimised for c only if optimise (and
// the method optimises).
func (pb *PairBounds) margin(c []float64, optimise bool) (Interval, error) {
	if len(c) != len(pb.Output) {
		return Interval{}, fmt.Errorf("bounds: margin has %d weights for %d outputs: %w", len(c), len(pb.Output), nn.ErrDimension)
	}
	for i, v := range c {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Interval{}, fmt.Errorf("bounds: margin weight %d is %v: %w", i, v, ErrOptions)
		}
	}
	if pb.pieces != nil {
		out, err := pb.whole.margin(c, optimise)
		if err != nil {
			return Interval{}, err
		}
		var hull Interval
		for i, p := range pb.pieces {
			m, err := p.margin(c, optimise)
			if err != nil {
				return Interval{}, err
			}
			if i == 0 {
				hull = m
			} else {
				hull = hull.Hull(m)
			}
		}
		return out.Intersect(hull), nil
	}
	out := Point(0)
	for j, v := range c {
		out = out.Add(Point(v).Scale(pb.Output[j]))
	}
	pp := pb.prop
	if pp == nil || !pp.sym || pp.chain != len(pp.f1.Layers) || len(pp.f1.Layers) != len(pp.f2.Layers) {
		return out, nil
	}
	// c^T delta^L on the joint variables (z1^L, delta^L) of the last layer.
	last := len(pp.f1.Layers) - 1
	n := len(c)
	lam := mat.NewDense(1, 2*n, nil)
	for j, v := range c {
		lam.Set(0, n+j, v)
	}
	zero := []float64{0}
	hiForm, loForm := newForm(lam, zero, false), newForm(lam, zero, true)
	hi := pp.jointBackSubstitute(hiForm, last, nil)
	lo := pp.jointBackSubstitute(loForm, last, nil)
	hiForm.recycle()
	loForm.recycle()
	out = out.Intersect(Interval{-lo[0], hi[0]})
	if pp.opt != nil && optimise {
		rows, sign := []int{0, 0}, []float64{1, -1}
		if ov := pp.optimiseJoint(last, lam, zero, rows, sign); ov != nil {
			form := newFormRows(lam, zero, rows, sign)
			b := pp.jointBackSubstitute(form, last, ov)
			form.recycle()
			out = out.Intersect(Interval{-b[1], b[0]})
		}
	}
	return out, nil
}
