package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// certCurve returns the data of the one-input figure of c at the inputs
// xs (in increasing order): the error at each x, and as the bound the
// smaller of Certificate.BoundAt and the bound of the sub-box of the input holding
// x (subBoxBounds), both of which hold at x. The certificate's own numbers
// are unchanged: only the figure bounds the sub-boxes.
func certCurve(f1, f2 *nn.Network, box spec.Box, opts certjob.Job, c *certify.Certificate, xs []float64) (report.Curve, error) {
	in := spec.Inputs{Box: box, Pairing: opts.Pairing, Quant: opts.Quant}
	budget := subBoxBudget(c.Time)
	ctx, cancel := context.WithTimeout(context.Background(), 2*budget)
	defer cancel()
	sb, subs, err := subBoxBounds(ctx, f1, f2, opts, figureSubBoxes(box.Lo[0], box.Hi[0], in), xs, budget)
	if err != nil {
		return report.Curve{}, err
	}
	cv := report.Curve{YLabel: axisName(c), X: xs, Error: make([]float64, len(xs)), Bound: make([]float64, len(xs)),
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
		cv.Steps = steps(box.Lo[0], box.Hi[0], opts.Quant.Step())
	}
	return cv, nil
}

// The sub-boxes of the one-input figure: at most maxFigureCells
// quantisation cells, else figureSlices equal slices, merged into no fewer
// than minFigureBoxes groups when bounding them all would take longer than
// the budget (see subBoxBudget).
const (
	maxFigureCells = 256
	figureSlices   = 128
	minFigureBoxes = 8
)

// subBoxSamples is the number of random inputs certify.Bound evaluates on
// each sub-box for its observed error: the figure does not use it.
const subBoxSamples = 16

// subBoxes are closed sub-intervals [Lo[k], Hi[k]] of a one-input box, in
// increasing order, each bounded on its own.
type subBoxes struct {
	Lo, Hi []float64
	// Cells reports that they are quantisation cells, not equal slices;
	// Grouped that each is a run of several.
	Cells, Grouped bool
}

// Len returns the number of sub-boxes.
func (s subBoxes) Len() int { return len(s.Lo) }

// name is the legend entry of the figure's bound: at each input the
// smaller of Certificate.BoundAt and the bound of its sub-box.
func (s subBoxes) name() string {
	switch {
	case s.Cells && s.Grouped:
		return fmt.Sprintf("certified bound at x or on its run of quantisation cells (%d runs)", s.Len())
	case s.Cells:
		return "certified bound at x or on its quantisation cell"
	}
	return fmt.Sprintf("certified bound at x or on its slice of the input (%d slices)", s.Len())
}

// figureSubBoxes returns the sub-intervals of [lo, hi] that subBoxBounds
// bounds: for a quantised input, its quantisation cells (the maximal runs
// on which x2 = q(x1) is constant, so that bound propagation has x2
// fixed); otherwise figureSlices equal slices.
func figureSubBoxes(lo, hi float64, in spec.Inputs) subBoxes {
	if in.Pairing == spec.QuantisedInput {
		if s, ok := quantCells(lo, hi, in); ok {
			return s
		}
	}
	edges := linspace(lo, hi, figureSlices+1)
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

// group returns n sub-boxes, each the smallest interval holding a run of
// consecutive sub-boxes of s (n <= s.Len()).
func (s subBoxes) group(n int) subBoxes {
	g := subBoxes{Cells: s.Cells, Grouped: s.Cells}
	for k := range n {
		first, last := k*s.Len()/n, (k+1)*s.Len()/n-1
		g.Lo, g.Hi = append(g.Lo, s.Lo[first]), append(g.Hi, s.Hi[last])
	}
	return g
}

// subBoxBudget returns how long subBoxBounds may take for a certificate
// that took certTime: a quarter of it, and at least a second.
func subBoxBudget(certTime time.Duration) time.Duration {
	return max(time.Second, certTime/4)
}

// subBoxBounds returns at each input of xs the smallest bound of the
// sub-boxes of s holding it (+Inf for none), and the sub-boxes bounded.
// Each bound is certified by bound propagation on its sub-box alone
// (certify.Bound with MethodInterval and the certificate's options), so it
// holds for every input of the sub-box.
//
// The widest sub-box is bounded first; when that shows that bounding all
// of them would take longer than budget, the others are merged into fewer,
// wider ones (at least minFigureBoxes). Once ctx is done the rest are left
// unbounded (+Inf), where the figure keeps Certificate.BoundAt.
func subBoxBounds(ctx context.Context, f1, f2 *nn.Network, opts certjob.Job, s subBoxes, xs []float64, budget time.Duration) ([]float64, subBoxes, error) {
	o := opts
	o.Method, o.Samples, o.Log = certify.MethodPropagation, subBoxSamples, nil
	bound := func(lo, hi float64) (float64, error) {
		c, err := o.Bound(ctx, f1, f2, spec.Box{Lo: []float64{lo}, Hi: []float64{hi}})
		if err != nil || !c.Certified {
			return math.Inf(1), err
		}
		return c.Bound, nil
	}
	start := time.Now()
	probe := 0
	for k := range s.Len() {
		if s.Hi[k]-s.Lo[k] > s.Hi[probe]-s.Lo[probe] {
			probe = k
		}
	}
	pLo, pHi := s.Lo[probe], s.Hi[probe]
	pb, err := bound(pLo, pHi)
	if err != nil {
		return nil, subBoxes{}, err
	}
	if per := time.Since(start); s.Len() > minFigureBoxes && time.Duration(s.Len())*per > budget {
		s = s.group(min(s.Len(), max(minFigureBoxes, int(budget/max(per, time.Nanosecond)))))
	}
	bs := make([]float64, s.Len())
	for k := range bs {
		switch {
		case s.Lo[k] == pLo && s.Hi[k] == pHi:
			bs[k] = pb
		case ctx.Err() != nil:
			bs[k] = math.Inf(1)
		default:
			if bs[k], err = bound(s.Lo[k], s.Hi[k]); err != nil {
				return nil, subBoxes{}, err
			}
		}
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		// The probe holds for its inputs even when it was merged.
		out[i] = math.Inf(1)
		if pLo <= x && x <= pHi {
			out[i] = pb
		}
		for k := range bs {
			if s.Lo[k] <= x && x <= s.Hi[k] {
				out[i] = min(out[i], bs[k])
			}
		}
	}
	return out, s, nil
}
