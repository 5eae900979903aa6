package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// Figure draws the figure of a certificate c of f1 against f2 over the
// box with opts (those c was made with). The
// figure's inputs are x1 or, when x1 and x2 are independent, the pair
// (x1, x2); with
//
//   - one of them: the observed error ||f1(x1) - f2(x2)|| and the
//     certified bound against the input, on a log scale, with the input
//     quantisation steps marked;
//   - two: the tightness T = ln(bound^2) - ln(error^2) on a grid;
//   - more: a histogram of bound / error over sampled inputs.
//
// The bound at an input pair is Certificate.BoundAt: the smallest of the
// bounds of the certificate that hold there. The one-input curve also
// takes the bound of bound propagation on the quantisation cell (or
// slice) of the input holding it (Curve), which follows the error more
// closely. Nothing in the figure depends on the time taken; ctx stops
// the work early, with an error.
func Figure(ctx context.Context, f1, f2 *nn.Network, box spec.Box, opts certjob.Job, c *certify.Certificate, title string) (*report.Figure, error) {
	if !c.Certified() {
		return nil, fmt.Errorf("experiment: no figure: the bound was not certified")
	}
	in := spec.Inputs{Box: box, Pairing: opts.Pairing, Quant: opts.Quant}
	n := box.Dim()
	indep := opts.Pairing == spec.Independent
	// space is the box of the figure's inputs z: x1, or (x1, x2).
	space := box
	if indep {
		space = spec.Box{Lo: append(slices.Clone(box.Lo), box.Lo...), Hi: append(slices.Clone(box.Hi), box.Hi...)}
	}
	at := func(z []float64) (bound, err float64, e error) {
		x1, x2 := z[:n], in.X2(z[:n])
		if indep {
			x2 = z[n:]
		}
		v, e := pairError(f1, f2, c, x1, x2)
		return c.BoundAt(x1, x2), v, e
	}
	switch FigureDims(opts.Inputs(box)) {
	case 1:
		cv, err := Curve(ctx, f1, f2, box, opts, c, CurveInputs(box.Lo[0], box.Hi[0], 2001, in))
		if err != nil {
			return nil, err
		}
		cv.Title = title
		return report.ErrorCurve(cv)
	case 2:
		const m = 101
		s := report.Surface{Title: title, X: Linspace(space.Lo[0], space.Hi[0], m), Y: Linspace(space.Lo[1], space.Hi[1], m)}
		if indep {
			s.XLabel, s.YLabel = "input x1 of the first network", "input x2 of the second network"
		}
		for _, y := range s.Y {
			brow, erow := make([]float64, m), make([]float64, m)
			for j, x := range s.X {
				b, e, err := at([]float64{x, y})
				if err != nil {
					return nil, err
				}
				brow[j], erow[j] = b, e
			}
			s.Bound, s.Error = append(s.Bound, brow), append(s.Error, erow)
		}
		return report.TightnessMap(s)
	}
	const samples = 2000
	rng := rand.New(rand.NewPCG(opts.Seed, 2))
	r := report.Ratios{Title: title, Bound: make([]float64, samples), Error: make([]float64, samples)}
	z := make([]float64, space.Dim())
	for k := range samples {
		for i := range z {
			z[i] = space.Lo[i] + rng.Float64()*(space.Hi[i]-space.Lo[i])
		}
		b, e, err := at(z)
		if err != nil {
			return nil, err
		}
		r.Bound[k], r.Error[k] = b, e
	}
	return report.RatioHistogram(r)
}

// AxisName returns what c bounds in a figure's words: "||f1 - f2||",
// "||f1 - f2||_inf" or "|f1_K - f2_K|".
func AxisName(c *certify.Certificate) string {
	return strings.NewReplacer("(x1)", "", "(x2)", "", "||_2", "||").Replace(c.Quantity.String())
}

// pairError returns the error of f1 at x1 against f2 at x2, measured as c
// bounds it (Certificate.Measure).
func pairError(f1, f2 *nn.Network, c *certify.Certificate, x1, x2 []float64) (float64, error) {
	y1, err := f1.Eval(x1)
	if err != nil {
		return 0, err
	}
	y2, err := f2.Eval(x2)
	if err != nil {
		return 0, err
	}
	return c.Measure(y1, y2), nil
}

// FigureDims returns the number of the figure's inputs: those of x1, or
// of (x1, x2) when they are independent.
func FigureDims(in spec.Inputs) int {
	if in.Pairing == spec.Independent {
		return 2 * in.Box.Dim()
	}
	return in.Box.Dim()
}

// FigureNote says what Figure draws for the input set in.
func FigureNote(in spec.Inputs) string {
	switch FigureDims(in) {
	case 1:
		return "error and bound against the input, log scale"
	case 2:
		return "tightness ln(bound^2 / error^2) over the inputs"
	}
	return "histogram of bound / error over sampled inputs"
}

// Linspace returns n points from lo to hi.
func Linspace(lo, hi float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	if n > 0 {
		v[n-1] = hi
	}
	return v
}

// CurveInputs returns n evenly spaced inputs in [lo, hi] and, for a
// quantised input, each step point and its predecessor, so that the
// curves jump where the quantiser does.
func CurveInputs(lo, hi float64, n int, in spec.Inputs) []float64 {
	xs := Linspace(lo, hi, n)
	if in.Pairing == spec.QuantisedInput {
		for _, s := range Steps(lo, hi, in.Quant.Step()) {
			xs = append(xs, s, math.Nextafter(s, math.Inf(-1)), math.Nextafter(s, math.Inf(1)))
		}
	}
	xs = slices.DeleteFunc(xs, func(x float64) bool { return x < lo || x > hi })
	slices.Sort(xs)
	return slices.Compact(xs)
}

// Steps returns the multiples of step in [lo, hi] (none if there would be
// more than report.MaxSteps).
func Steps(lo, hi, step float64) []float64 {
	if !(step > 0) || (hi-lo)/step > report.MaxSteps {
		return nil
	}
	var s []float64
	for k := math.Ceil(lo / step); k*step <= hi; k++ {
		s = append(s, k*step)
	}
	return s
}
