package experiment

import (
	"context"
	"fmt"
	"math"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// Curve returns the data of the one-input figure of c at the inputs xs
// (in increasing order): the error at each x, and as the bound the
// smaller of Certificate.BoundAt and the bound of the sub-box of the
// input holding x (subBoxBounds), both of which hold at x. The
// certificate's own numbers are unchanged: only the figure bounds the
// sub-boxes. The sub-boxes are fixed by the input set alone (see
// figureSubBoxes), so the curve does not depend on the time taken.
func Curve(ctx context.Context, f1, f2 *nn.Network, box spec.Box, opts certjob.Job, c *certify.Certificate, xs []float64) (report.Curve, error) {
	in := spec.Inputs{Box: box, Pairing: opts.Pairing, Quant: opts.Quant}
	subs := figureSubBoxes(box.Lo[0], box.Hi[0], in)
	sb, err := subBoxBounds(ctx, f1, f2, opts, subs, xs)
	if err != nil {
		return report.Curve{}, err
	}
	cv := report.Curve{YLabel: AxisName(c), X: xs, Error: make([]float64, len(xs)), Bound: make([]float64, len(xs)),
		BoundName: subs.name(), WorstCase: c.Bound}
	for i, x := range xs {
		x1 := []float64{x}
		x2 := in.X2(x1)
		if cv.Error[i], err = pairError(f1, f2, c, x1, x2); err != nil {
			return report.Curve{}, err
		}
		cv.Bound[i] = min(c.BoundAt(x1, x2), sb[i])
	}
	if opts.Pairing == spec.QuantisedInput {
		cv.Steps = Steps(box.Lo[0], box.Hi[0], opts.Quant.Step())
	}
	return cv, nil
}

// The sub-boxes of the one-input figure: its quantisation cells when
// there are at most maxFigureCells, else figureSlices equal slices.
const (
	maxFigureCells = 256
	figureSlices   = 128
)

// subBoxSamples is the number of random inputs certify.Bound evaluates on
// each sub-box for its observed error: the figure does not use it.
const subBoxSamples = 16

// subBoxes are closed sub-intervals [Lo[k], Hi[k]] of a one-input box, in
// increasing order, each bounded on its own.
type subBoxes struct {
	Lo, Hi []float64
	// Cells reports that they are quantisation cells, not equal slices.
	Cells bool
}

// Len returns the number of sub-boxes.
func (s subBoxes) Len() int { return len(s.Lo) }

// name is the legend entry of the figure's bound: at each input the
// smaller of Certificate.BoundAt and the bound of its sub-box.
func (s subBoxes) name() string {
	if s.Cells {
		return "certified bound at x or on its quantisation cell"
	}
	return fmt.Sprintf("certified bound at x or on its slice of the input (%d slices)", s.Len())
}

// figureSubBoxes returns the sub-intervals of [lo, hi] that Curve
// bounds: for a quantised input, its quantisation cells (the maximal runs
// on which x2 = q(x1) is constant, so that bound propagation has x2
// fixed); otherwise figureSlices equal slices.
func figureSubBoxes(lo, hi float64, in spec.Inputs) subBoxes {
	if in.Pairing == spec.QuantisedInput {
		if s, ok := quantCells(lo, hi, in); ok {
			return s
		}
	}
	edges := Linspace(lo, hi, figureSlices+1)
	return subBoxes{Lo: edges[:figureSlices], Hi: edges[1:]}
}

// quantCells returns the cells of the input quantiser q of in on [lo, hi].
// The quantiser is monotone and constant between consecutive multiples of
// step/2 (all rounding modes), so [lo, hi] is cut at those grid points into
// the points and the open intervals between them, each with its value of
// q, and runs of equal value are merged into one closed cell. ok is false
// when there would be more than maxFigureCells.
func quantCells(lo, hi float64, in spec.Inputs) (s subBoxes, ok bool) {
	half := in.Quant.Step() / 2
	if !(half > 0) || (hi-lo)/half > 2*maxFigureCells {
		return subBoxes{}, false
	}
	pts := []float64{lo}
	for k := math.Ceil(lo / half); k*half < hi; k++ {
		if p := k * half; p > lo {
			pts = append(pts, p)
		}
	}
	if hi > lo {
		pts = append(pts, hi)
	}
	s.Cells = true
	last := math.NaN() // the value of q on the last cell
	add := func(a, b float64) {
		if a > b {
			return // an open interval holding no float64
		}
		v, _ := in.Quant.Quantise(a)
		if n := s.Len(); n > 0 && v == last {
			s.Hi[n-1] = b
			return
		}
		s.Lo, s.Hi, last = append(s.Lo, a), append(s.Hi, b), v
	}
	for j, p := range pts {
		add(p, p)
		if j+1 < len(pts) {
			add(math.Nextafter(p, math.Inf(1)), math.Nextafter(pts[j+1], math.Inf(-1)))
		}
	}
	return s, s.Len() <= maxFigureCells
}

// subBoxBounds returns at each input of xs the smallest bound of the
// sub-boxes of s holding it (+Inf for none). Each bound is certified by
// bound propagation on its sub-box alone (certify.Bound with
// MethodInterval, the certificate's options and no splitting), so it
// holds for every input of the sub-box; a sub-box whose bound is not
// certified keeps +Inf, where the figure keeps Certificate.BoundAt. Every
// sub-box is bounded: once ctx is done, subBoxBounds returns its error.
func subBoxBounds(ctx context.Context, f1, f2 *nn.Network, opts certjob.Job, s subBoxes, xs []float64) ([]float64, error) {
	o := opts
	o.Method, o.Samples, o.Log = certify.MethodPropagation, subBoxSamples, nil
	o.Refine.MaxPieces, o.Refine.TimeBudget = 1, 0
	bs := make([]float64, s.Len())
	for k := range bs {
		c, err := o.Bound(ctx, f1, f2, spec.Box{Lo: []float64{s.Lo[k]}, Hi: []float64{s.Hi[k]}})
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("experiment: figure cut short: %w", err)
		}
		bs[k] = math.Inf(1)
		if c.Certified() {
			bs[k] = c.Bound
		}
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Inf(1)
		for k := range bs {
			if s.Lo[k] <= x && x <= s.Hi[k] {
				out[i] = min(out[i], bs[k])
			}
		}
	}
	return out, nil
}
