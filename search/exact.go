package search

import (
	"math"
	"slices"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// The exact maximum for one input and piecewise-linear networks.
//
// On an interval where f1 and f2 (or f1 and the constant f2(q(x)) of one
// quantiser cell) are affine, f1 - f2 is affine and the error, a norm of it
// (or |c^T .|), is convex; so its supremum over the interval is at an end
// (for independent inputs: at a corner of a rectangle of pieces). The
// candidates are therefore the breakpoints of the networks, the ends of the
// box and, for quantised inputs, the quantiser's jumps; at a jump the
// supremum may be a one-sided limit, which is approached by the float64
// next to the jump on that side (so the value reported is attained, and is
// the supremum up to rounding).

// piecewiseLinear reports whether every activation of f is piecewise linear.
func piecewiseLinear(f *nn.Network) bool {
	if f.Quantised() {
		return false // piecewise constant steps: no finite list of candidates
	}
	for _, l := range f.Layers {
		switch l.Act.Kind {
		case nn.Identity, nn.ReLU, nn.LeakyReLU, nn.HardTanh:
		default:
			return false
		}
	}
	return true
}

// breakpoints returns the ends lo, hi and every point between them where
// the one-input piecewise-linear network f changes its linear piece, in
// increasing order; ok is false if there are more than maxPieces.
//
// Layer by layer, the points split [lo, hi] into intervals on which the
// layer's input is affine in x, so each pre-activation is affine there and
// crosses a kink at most once; its crossings become new points, at which
// the layer's values are found by linear interpolation.
func breakpoints(f *nn.Network, lo, hi float64, maxPieces int) (xs []float64, ok bool) {
	xs = []float64{lo, hi}
	vals := [][]float64{{lo}, {hi}}
	if lo == hi {
		return xs[:1], true
	}
	if !finite(hi - lo) {
		return nil, false // interpolation would overflow
	}
	for _, l := range f.Layers {
		pre := make([][]float64, len(xs))
		for p, v := range vals {
			pre[p] = affine(l, v)
			for _, s := range pre[p] {
				if !finite(s) {
					return nil, false // no breakpoint can be placed
				}
			}
		}
		nx, npre := []float64{xs[0]}, [][]float64{pre[0]}
		for p := 1; p < len(xs); p++ {
			a, b := xs[p-1], xs[p]
			pa, pb := pre[p-1], pre[p]
			var roots []float64
			for i := range pa {
				if !finite(pb[i] - pa[i]) {
					return nil, false
				}
				for _, k := range l.Act.Kinks() {
					if (pa[i]-k)*(pb[i]-k) < 0 {
						s := (k - pa[i]) / (pb[i] - pa[i])
						if r := a + s*(b-a); r > a && r < b {
							roots = append(roots, r)
						}
					}
				}
			}
			slices.Sort(roots)
			roots = slices.Compact(roots)
			for _, r := range roots {
				s := (r - a) / (b - a)
				v := make([]float64, len(pa))
				for i := range v {
					v[i] = pa[i] + s*(pb[i]-pa[i])
				}
				nx, npre = append(nx, r), append(npre, v)
			}
			nx, npre = append(nx, b), append(npre, pb)
			if len(nx) > maxPieces+1 {
				return nil, false
			}
		}
		xs = nx
		vals = make([][]float64, len(npre))
		for p, v := range npre {
			out := make([]float64, len(v))
			for i, s := range v {
				out[i] = l.Act.Apply(s)
			}
			vals[p] = out
		}
	}
	return xs, true
}

// finite reports whether v is neither infinite nor NaN.
func finite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// affine returns W v + b for layer l.
func affine(l nn.Layer, v []float64) []float64 {
	out := make([]float64, l.Out())
	l.AffineTo(out, v)
	return out
}

// jumpCandidates returns, for the quantiser of in, the points of [lo, hi]
// at or next to a possible jump (every multiple of half a step covers the
// jumps of all rounding modes); ok is false if there are more than max.
func jumpCandidates(in spec.Inputs, lo, hi float64, max int) ([]float64, bool) {
	h := in.Quant.Step() / 2
	first, last := math.Ceil(lo/h), math.Floor(hi/h)
	if last-first+1 > float64(max) {
		return nil, false
	}
	var out []float64
	for k := first; k <= last; k++ {
		j := k * h
		for _, x := range []float64{math.Nextafter(j, math.Inf(-1)), j, math.Nextafter(j, math.Inf(1))} {
			if x >= lo && x <= hi {
				out = append(out, x)
			}
		}
	}
	return out, true
}

// exactCandidates returns the points of the search space whose values
// include the supremum of the error, for one input and networks that are
// piecewise linear, or quantised with an input quantiser (then piecewise
// constant between its jumps: every later value is a function of the
// quantised input); for QuantisedInput only f1 need be either. For
// independent inputs it returns the candidates of each network instead
// (pairs are formed by exactIndependent). ok is false when the instance is
// not of this kind (or the networks are graphs) or has too many pieces.
func exactCandidates(p *problem, maxPieces int) (xs1, xs2 []float64, ok bool) {
	if p.n != 1 || p.f1 == nil {
		return nil, nil, false
	}
	lo, hi := p.in.Box.Lo[0], p.in.Box.Hi[0]
	b1, ok := pieceCandidates(p.f1, lo, hi, maxPieces)
	if !ok {
		return nil, nil, false
	}
	if p.in.Pairing == spec.QuantisedInput {
		j, ok := jumpCandidates(p.in, lo, hi, maxPieces)
		if !ok {
			return nil, nil, false
		}
		return append(b1, j...), nil, true
	}
	if p.in.Pairing == spec.Independent {
		b2, ok := pieceCandidates(p.f2, p.box2.Lo[0], p.box2.Hi[0], maxPieces)
		return b1, b2, ok
	}
	b2, ok := pieceCandidates(p.f2, lo, hi, maxPieces)
	return append(b1, b2...), nil, ok
}

// pieceCandidates returns the breakpoints of the one-input network f on
// [lo, hi] (see breakpoints), or, for a quantised f with an input
// quantiser, the points at and next to its jumps, and the ends.
func pieceCandidates(f *nn.Network, lo, hi float64, maxPieces int) ([]float64, bool) {
	switch {
	case piecewiseLinear(f):
		return breakpoints(f, lo, hi, maxPieces)
	case f.Input == nil:
		return nil, false
	}
	s, z := f.Input.At(0)
	// q jumps where v/s crosses k + 1/2 with the code k + z inside the range.
	first := max(math.Ceil(lo/s-0.5), float64(f.Input.Lo-z))
	last := min(math.Floor(hi/s-0.5), float64(f.Input.Hi-z-1))
	if last-first+1 > float64(maxPieces) {
		return nil, false
	}
	out := []float64{lo, hi}
	for k := first; k <= last; k++ {
		j := (k + 0.5) * s
		x := math.Nextafter(math.Nextafter(j, math.Inf(-1)), math.Inf(-1))
		for range 5 { // two float64s either side: the rounding of v/s
			if x >= lo && x <= hi {
				out = append(out, x)
			}
			x = math.Nextafter(x, math.Inf(1))
		}
	}
	return out, true
}
