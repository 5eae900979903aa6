package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// checkPlot reports a --plot file name that is not .png or .svg, as a
// usage error.
func checkPlot(path string) error {
	if report.CheckPath(path) != nil {
		return usagef("--plot %q: want a .png or .svg file name", path)
	}
	return nil
}

// certFigure draws the figure of a certificate over its input set. The
// figure's inputs are x1 or, when x1 and x2 are independent, the pair
// (x1, x2); with
//
//   - one of them: the observed error ||f1(x1) - f2(x2)|| and the
//     certified bound against the input, on a log scale, with the input
//     quantisation steps marked;
//   - two: the tightness T = ln(bound^2) - ln(error^2) on a grid;
//   - more: a histogram of bound / error over sampled inputs.
//
// The bound at an input pair is pointBound: the smallest of the bounds of
// the certificate that hold there. The one-input curve also takes the
// bound of bound propagation on the quantisation cell (or slice) of the
// input holding it (certCurve), which follows the error more closely.
func certFigure(f1, f2 *nn.Network, box spec.Box, opts certjob.Job, c *certify.Certificate, title string) (*report.Figure, error) {
	if !c.Certified {
		return nil, fmt.Errorf("no figure: the bound was not certified")
	}
	in := opts.Inputs(box)
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
		return pointBound(c, opts, x1, x2), v, e
	}
	switch figureDims(box, opts) {
	case 1:
		cv, err := certCurve(f1, f2, box, opts, c, curveInputs(box.Lo[0], box.Hi[0], 2001, in))
		if err != nil {
			return nil, err
		}
		cv.Title = title
		return report.ErrorCurve(cv)
	case 2:
		const m = 101
		s := report.Surface{Title: title, X: linspace(space.Lo[0], space.Hi[0], m), Y: linspace(space.Lo[1], space.Hi[1], m)}
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

// figureDims returns the number of the figure's inputs: those of x1, or
// of (x1, x2) when they are independent.
func figureDims(box spec.Box, opts certjob.Job) int {
	if opts.Pairing == spec.Independent {
		return 2 * box.Dim()
	}
	return box.Dim()
}

// figureNote says what certFigure draws for box and opts.
func figureNote(box spec.Box, opts certjob.Job) string {
	switch figureDims(box, opts) {
	case 1:
		return "error and bound against the input, log scale"
	case 2:
		return "tightness ln(bound^2 / error^2) over the inputs"
	}
	return "histogram of bound / error over sampled inputs"
}

// pointBound returns a certified bound at one input pair on what c bounds
// (Certificate.Quantity): the smallest of the bound over the whole input
// set, the root inequality
//
//	sqrt(gamma + gamma_x1 ||x1||^2 + gamma_x2 ||x2||^2 + gamma_x ||x1 - x2||^2)
//
// of the certificate's gammas when the root was certified and of the SDP's
// own checked gammas (Certificate.SDPGammas: they still hold when bound
// propagation's enclosure gave the bound and the gammas are its
// (bound^2, 0, 0, 0)), and the bound of the pieces holding (x1, x2) (the
// largest of them, for a pair on a border). For the inf-norm over several
// outputs the gammas bound the output with the largest bound only; the
// others keep their bounds over the input set.
func pointBound(c *certify.Certificate, opts certjob.Job, x1, x2 []float64) float64 {
	b := c.Bound
	if rootCertified(c) {
		b = min(b, gammaBound(c, opts, c.Gammas, x1, x2))
	}
	if sdpGammasHold(c) {
		b = min(b, gammaBound(c, opts, c.SDPGammas, x1, x2))
	}
	piece := math.Inf(-1)
	for _, p := range c.Pieces {
		if (spec.Box{Lo: p.Lo1, Hi: p.Hi1}).Contains(x1) && (spec.Box{Lo: p.Lo2, Hi: p.Hi2}).Contains(x2) {
			piece = max(piece, p.Bound)
		}
	}
	if !math.IsInf(piece, -1) {
		b = min(b, piece)
	}
	return b
}

// gammaBound returns the bound of gammas g of c at (x1, x2): the square
// root of the right-hand side of the root inequality, or for the inf-norm
// over several outputs the largest of it and the other outputs' bounds.
func gammaBound(c *certify.Certificate, opts certjob.Job, g certify.Gammas, x1, x2 []float64) float64 {
	var n1, n2, d float64
	for i := range x1 {
		n1 += x1[i] * x1[i]
		n2 += x2[i] * x2[i]
		d += (x1[i] - x2[i]) * (x1[i] - x2[i])
	}
	b := math.Sqrt(max(0, g.Gamma+g.GammaX1*n1+g.GammaX2*n2+g.GammaX*d))
	if opts.C == nil && opts.Norm == spec.NormInf && len(c.Outputs) > 1 {
		for j, bj := range c.Outputs {
			if j != worstOutput(c) {
				b = max(b, bj)
			}
		}
	}
	return b
}

// sdpGammasHold reports whether c holds the SDP's own gammas
// (Certificate.SDPGammas, zero when no SDP passed the check).
func sdpGammasHold(c *certify.Certificate) bool {
	return c.Certified && c.SDPGammas != (certify.Gammas{})
}

// rootCertified reports whether the gammas of c hold: the root SDP over the
// whole input set was certified (a certificate may also be certified by
// its pieces alone).
func rootCertified(c *certify.Certificate) bool {
	return c.Certified && !math.IsInf(c.RootBound, 0) && !math.IsNaN(c.RootBound)
}

// linspace returns n points from lo to hi.
func linspace(lo, hi float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	if n > 0 {
		v[n-1] = hi
	}
	return v
}

// curveInputs returns n evenly spaced inputs in [lo, hi] and, for a
// quantised input, each step point and its predecessor, so that the
// curves jump where the quantiser does.
func curveInputs(lo, hi float64, n int, in spec.Inputs) []float64 {
	xs := linspace(lo, hi, n)
	if in.Pairing == spec.QuantisedInput {
		for _, s := range steps(lo, hi, in.Quant.Step()) {
			xs = append(xs, s, math.Nextafter(s, math.Inf(-1)), math.Nextafter(s, math.Inf(1)))
		}
	}
	xs = slices.DeleteFunc(xs, func(x float64) bool { return x < lo || x > hi })
	slices.Sort(xs)
	return slices.Compact(xs)
}

// steps returns the multiples of step in [lo, hi] (none if there would be
// more than report.MaxSteps).
func steps(lo, hi, step float64) []float64 {
	if !(step > 0) || (hi-lo)/step > report.MaxSteps {
		return nil
	}
	var s []float64
	for k := math.Ceil(lo / step); k*step <= hi; k++ {
		s = append(s, k*step)
	}
	return s
}
