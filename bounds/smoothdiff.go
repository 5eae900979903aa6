package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// The difference of a smooth activation at two points (the monotone
// chord).
//
// For tanh and sigmoid, phi is increasing and phi' is even and decreasing
// in |s|, so on the box s in [l, u], d in [dl, du]
//
//	g(s, d) = phi(s + d) - phi(s)
//
// is increasing in d, and for a fixed d >= 0 unimodal in s with its
// maximum at s = -d/2 (g_s = phi'(s + d) - phi'(s) vanishes where |s + d| =
// |s|), for d <= 0 likewise with its minimum there. Hence
//
//	max g = g(clamp(-du/2, l, u), du)       if du >= 0,
//	      = max(g(l, du), g(u, du))         otherwise,
//
// and symmetrically for the minimum with dl. This is exact on the box,
// where the mean value theorem's max phi' |d| over the hull of the two
// pre-activation ranges is not: it counts the steepest slope over the
// whole width of d (2 tanh(du/2) against du for tanh, at s = 0).

// smoothDiff returns an enclosure of {phi(s + d) - phi(s) : s in x, d in dx}
// for tanh or sigmoid a, or the whole line when an end is not finite.
func smoothDiff(a nn.Activation, x, dx Interval) Interval {
	if !finiteAll([]Interval{x, dx}) {
		return Interval{math.Inf(-1), math.Inf(1)}
	}
	// clamp returns -d/2 clamped to x; the halving must be exact (no
	// underflow), or the point would miss the maximum.
	exact := true
	clamp := func(d float64) float64 {
		s := -d / 2
		exact = exact && -2*s == d
		return min(max(s, x.Lo), x.Hi)
	}
	// gUp and gDown bound g(s, d) from above and below; phi is increasing.
	gUp := func(s, d float64) float64 { return outward.SubUp(actUp(a, outward.AddUp(s, d)), actDown(a, s)) }
	gDown := func(s, d float64) float64 { return outward.SubDown(actDown(a, outward.AddDown(s, d)), actUp(a, s)) }
	var out Interval
	if du := dx.Hi; du >= 0 {
		out.Hi = gUp(clamp(du), du)
	} else {
		out.Hi = max(gUp(x.Lo, du), gUp(x.Hi, du))
	}
	if dl := dx.Lo; dl <= 0 {
		out.Lo = gDown(clamp(dl), dl)
	} else {
		out.Lo = min(gDown(x.Lo, dl), gDown(x.Hi, dl))
	}
	if !exact {
		return Interval{math.Inf(-1), math.Inf(1)}
	}
	return out
}

// isSmooth reports whether a is tanh or sigmoid.
func isSmooth(a nn.Activation) bool { return a.Kind == nn.Tanh || a.Kind == nn.Sigmoid }

// neg returns -x (exact).
func neg(x Interval) Interval { return Interval{-x.Hi, -x.Lo} }
