package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Every supported activation is continuous and monotone on each of the
// half-lines (-inf, 0] and [0, inf) (hard-tanh and the smooth ones are
// monotone everywhere; leaky ReLU and ELU with a negative Alpha only
// piecewise). So the image of [l, u] is the hull of the values at l, u and,
// when l < 0 < u, at 0.

// actDown returns a lower bound of a(s).
func actDown(a nn.Activation, s float64) float64 {
	switch a.Kind {
	case nn.ReLU, nn.HardTanh, nn.Identity:
		return a.Apply(s) // exact
	case nn.LeakyReLU:
		if s >= 0 {
			return s
		}
		return outward.MulDown(a.Alpha, s)
	}
	return outward.LibDown(a.Apply(s))
}

// actUp returns an upper bound of a(s).
func actUp(a nn.Activation, s float64) float64 {
	switch a.Kind {
	case nn.ReLU, nn.HardTanh, nn.Identity:
		return a.Apply(s)
	case nn.LeakyReLU:
		if s >= 0 {
			return s
		}
		return outward.MulUp(a.Alpha, s)
	}
	return outward.LibUp(a.Apply(s))
}

// actImage returns an enclosure of {a(s) : s in x}.
func actImage(a nn.Activation, x Interval) Interval {
	lo := min(actDown(a, x.Lo), actDown(a, x.Hi))
	hi := max(actUp(a, x.Lo), actUp(a, x.Hi))
	if x.Straddles() {
		lo = min(lo, actDown(a, 0))
		hi = max(hi, actUp(a, 0))
	}
	return clampRange(a, Interval{lo, hi})
}

// clampRange intersects x with the range of a where a is bounded.
func clampRange(a nn.Activation, x Interval) Interval {
	switch a.Kind {
	case nn.Tanh:
		return x.Intersect(Interval{-1, 1})
	case nn.Sigmoid:
		return x.Intersect(Interval{0, 1})
	case nn.ReLU:
		return x.Intersect(Interval{0, math.Inf(1)})
	}
	return x
}

// SlopeRange returns an interval S containing every derivative (one-sided at
// kinks) of a on the open pieces meeting [x.Lo, x.Hi]. By the mean value
// theorem (a is continuous and piecewise differentiable), for all s, t in x,
//
//	a(t) - a(s) = sigma (t - s)   for some sigma in S.
func SlopeRange(a nn.Activation, x Interval) Interval {
	l, u := x.Lo, x.Hi
	switch a.Kind {
	case nn.Identity:
		return Point(1)
	case nn.ReLU, nn.LeakyReLU:
		left := 0.0
		if a.Kind == nn.LeakyReLU {
			left = a.Alpha
		}
		switch {
		case u <= 0:
			return Point(left)
		case l >= 0:
			return Point(1)
		}
		return Interval{min(left, 1), max(left, 1)}
	case nn.HardTanh:
		if a.Lo == a.Hi || u <= a.Lo || l >= a.Hi {
			return Point(0)
		}
		if l >= a.Lo && u <= a.Hi {
			return Point(1)
		}
		return Interval{0, 1}
	case nn.Tanh, nn.Sigmoid:
		// a' is even, positive and decreasing in |s|.
		near := 0.0
		if l > 0 {
			near = l
		} else if u < 0 {
			near = -u
		}
		far := max(math.Abs(l), math.Abs(u))
		return Interval{outward.LibDown(smoothSlope(a, far)), min(outward.LibUp(smoothSlope(a, near)), smoothSlopeMax(a))}
	case nn.ELU:
		// a'(s) = Alpha e^s for s < 0 (monotone in s), 1 for s > 0.
		var pts []float64
		if l < 0 {
			pts = append(pts, a.Alpha*math.Exp(l), a.Alpha*math.Exp(min(u, 0)))
		}
		if u > 0 || l == u {
			pts = append(pts, 1)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			lo, hi = min(lo, outward.LibDown(p)), max(hi, outward.LibUp(p))
		}
		return Interval{lo, hi}
	}
	return Interval{math.Inf(-1), math.Inf(1)}
}

// smoothSlope returns a'(s) for tanh or sigmoid, evaluated in a form without
// cancellation: sech^2 s, and e^-|s| / (1 + e^-|s|)^2.
func smoothSlope(a nn.Activation, s float64) float64 {
	if a.Kind == nn.Tanh {
		c := math.Cosh(s)
		return 1 / (c * c)
	}
	e := math.Exp(-math.Abs(s))
	return e / ((1 + e) * (1 + e))
}

// smoothSlopeMax returns the largest slope of tanh (1) or sigmoid (1/4).
func smoothSlopeMax(a nn.Activation) float64 {
	if a.Kind == nn.Tanh {
		return 1
	}
	return 0.25
}

// mixedDiffImage returns an enclosure of {a2(s + d) - a1(s)} over s in x
// and d in dx for two different activations, each the identity, ReLU or
// hard-tanh (an int8 layer's clamp against the float layer's ReLU where
// the float pre-activation passes the clamp); ok is false for others.
//
// a2 does not decrease and a1 does not depend on d, so the least value is
// at d = dx.Lo and the greatest at d = dx.Hi; at a fixed d the difference
// is linear in s between the kinks of a1 and those of a2 moved by -d, so
// its extremes over x are at x's ends or those kinks. Both activations
// have slopes in [0, 1]: a candidate s that rounding moves off its place
// by e, and the rounded sum s + d, change the value by at most e each; with
// the rounded subtraction that is a few units of roundoff of the largest
// magnitude involved, by which the ends are widened.
func mixedDiffImage(a1, a2 nn.Activation, x, dx Interval) (Interval, bool) {
	scale := 0.0
	for _, a := range []nn.Activation{a1, a2} {
		if a.Kind != nn.Identity && a.Kind != nn.ReLU && a.Kind != nn.HardTanh {
			return Interval{}, false
		}
		for _, t := range a.Kinks() {
			scale = max(scale, math.Abs(t))
		}
	}
	for _, v := range []float64{x.Lo, x.Hi, dx.Lo, dx.Hi} {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return Interval{}, false
		}
	}
	scale += max(math.Abs(x.Lo), math.Abs(x.Hi)) + max(math.Abs(dx.Lo), math.Abs(dx.Hi))
	extreme := func(d float64, pick func(a, b float64) float64) float64 {
		v := a2.Apply(x.Lo+d) - a1.Apply(x.Lo)
		try := func(s float64) {
			if s >= x.Lo && s <= x.Hi {
				v = pick(v, a2.Apply(s+d)-a1.Apply(s))
			}
		}
		try(x.Hi)
		for _, t := range a1.Kinks() {
			try(t)
		}
		for _, t := range a2.Kinks() {
			try(t - d)
		}
		return v
	}
	err := 16*outward.Unit*scale + outward.Tiny
	lo := extreme(dx.Lo, func(a, b float64) float64 { return min(a, b) })
	hi := extreme(dx.Hi, func(a, b float64) float64 { return max(a, b) })
	return Interval{outward.DownBy(lo, err), outward.UpBy(hi, err)}, true
}

// diffImage returns an enclosure of {a(s + d) - a(s)} over s in x, d in dx
// with s + d in x2 (an enclosure of the second network's pre-activation):
// by the mean value theorem and, for tanh and sigmoid, also exactly on the
// boxes of (s, d) and of (s + d, d) (smoothdiff.go).
func diffImage(a nn.Activation, x, x2, dx Interval) Interval {
	out := SlopeRange(a, x.Hull(x2)).Scale(dx)
	if isSmooth(a) {
		// a(t) - a(t - d) over t = s + d in x2 is -(a(t - d) - a(t)).
		out = out.Intersect(smoothDiff(a, x, dx)).Intersect(neg(smoothDiff(a, x2, neg(dx))))
	}
	return out
}
