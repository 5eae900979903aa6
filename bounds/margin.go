package bounds

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/internal/parallel"
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

// Margins returns Margin(c) for every c of cs: the same intervals, with
// the back-substitutions (and slope optimisations) of all of them done
// together, one pass through the networks for all the margins rather than
// one per margin (the rows of a back-substitution do not interact).
func (pb *PairBounds) Margins(cs [][]float64) ([]Interval, error) {
	return pb.MarginsContext(context.Background(), cs)
}

// MarginsContext is Margins stopped by ctx: once ctx is done it returns
// ctx's error (wrapped) before the margins of the next piece of a split
// box are back-substituted, and before the slopes are optimised for
// them: margins so cut yield nothing.
func (pb *PairBounds) MarginsContext(ctx context.Context, cs [][]float64) ([]Interval, error) {
	return pb.margins(ctx, cs, true)
}

// margin is Margin, with the slopes optimised for c only if optimise (and
// the method optimises).
func (pb *PairBounds) margin(c []float64, optimise bool) (Interval, error) {
	out, err := pb.margins(context.Background(), [][]float64{c}, optimise)
	if err != nil {
		return Interval{}, err
	}
	return out[0], nil
}

// margins is MarginsContext, with the slopes optimised only if optimise
// (and the method optimises).
func (pb *PairBounds) margins(ctx context.Context, cs [][]float64, optimise bool) ([]Interval, error) {
	if err := checkMargins(cs, len(pb.Output)); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bounds: margins stopped: %w", err)
	}
	if pb.pieces != nil {
		// The whole box's margins (ms[0]) and the pieces', in parallel:
		// each is a back-substitution of its own.
		parts := append([]*PairBounds{pb.whole}, pb.pieces...)
		ms, errs := make([][]Interval, len(parts)), make([]error, len(parts))
		parallel.For(ctx, len(parts), runtime.GOMAXPROCS(0), func(i int) {
			ms[i], errs[i] = parts[i].margins(ctx, cs, optimise)
		})
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		if err := ctx.Err(); err != nil { // parts left out
			return nil, fmt.Errorf("bounds: margins stopped: %w", err)
		}
		out, hull := ms[0], make([]Interval, len(cs))
		for i, m := range ms[1:] {
			for q := range hull {
				if i == 0 {
					hull[q] = m[q]
				} else {
					hull[q] = hull[q].Hull(m[q])
				}
			}
		}
		for q := range out {
			out[q] = out[q].Intersect(hull[q])
		}
		return out, nil
	}
	pp := pb.prop
	joint := len(cs) > 0 && pp != nil && pp.sym && pp.chain == len(pp.f1.Layers) && len(pp.f1.Layers) == len(pp.f2.Layers)
	// c^T delta^L on the joint variables (z1^L, delta^L) of the last layer.
	n, Q := len(pb.Output), len(cs)
	var lam *mat.Dense
	if joint {
		lam = mat.NewDense(Q, 2*n, nil)
		for q, c := range cs {
			for j, v := range c {
				lam.Set(q, n+j, v)
			}
		}
	}
	out := pb.plainMargins(cs, lam)
	if !joint || pp.opt == nil || !optimise {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bounds: margins stopped before optimising their slopes: %w", err)
	}
	last, zero := len(pp.f1.Layers)-1, make([]float64, Q)
	rows, sign := make([]int, 0, 2*Q), make([]float64, 0, 2*Q)
	for q := range Q {
		rows, sign = append(rows, q, q), append(sign, 1, -1)
	}
	if ov := pp.optimiseJoint(last, lam, zero, rows, sign); ov != nil {
		form := newFormRows(lam, zero, rows, sign)
		b := pp.jointBackSubstitute(form, last, ov)
		form.recycle()
		releaseSlopes(ov)
		for q := range out {
			out[q] = out[q].Intersect(Interval{-b[2*q+1], b[2*q]})
		}
	}
	return out, nil
}

// plainMargins returns the margins cs of pb back-substituted without
// optimised slopes: the goal's as Pair checked them when cs are those,
// else computed: from the output intervals and, if lam is not nil (the
// margins' weights on the joint variables of the last layer), by
// back-substitution.
func (pb *PairBounds) plainMargins(cs [][]float64, lam *mat.Dense) []Interval {
	if g := pb.goal; g != nil && slices.EqualFunc(g.cs, cs, slices.Equal) {
		return slices.Clone(g.ivs)
	}
	out := make([]Interval, len(cs))
	for q, c := range cs {
		out[q] = Point(0)
		for j, v := range c {
			out[q] = out[q].Add(Point(v).Scale(pb.Output[j]))
		}
	}
	if lam == nil {
		return out
	}
	pp, zero := pb.prop, make([]float64, len(cs))
	last := len(pp.f1.Layers) - 1
	hiForm, loForm := newForm(lam, zero, false), newForm(lam, zero, true)
	hi := pp.jointBackSubstitute(hiForm, last, nil)
	lo := pp.jointBackSubstitute(loForm, last, nil)
	hiForm.recycle()
	loForm.recycle()
	for q := range out {
		out[q] = out[q].Intersect(Interval{-lo[q], hi[q]})
	}
	return out
}

// checkMargins reports margin weights cs that are not n finite numbers
// each.
func checkMargins(cs [][]float64, n int) error {
	for _, c := range cs {
		if len(c) != n {
			return fmt.Errorf("bounds: margin has %d weights for %d outputs: %w", len(c), n, nn.ErrDimension)
		}
		for i, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("bounds: margin weight %d is %v: %w", i, v, ErrOptions)
			}
		}
	}
	return nil
}
