package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Rigorous extrema of phi(z) - lambda z.
//
// A linear relaxation of an activation phi on [l, u] is a pair of lines
//
//	lambdaL z + muL <= phi(z) <= lambdaU z + muU,   z in [l, u].
//
// The slopes are chosen by heuristics (relax.go); soundness rests only on the
// offsets, computed here as rigorous bounds of
//
//	muL <= min_{[l,u]} g,   muU >= max_{[l,u]} g,   g(z) = phi(z) - lambda z.
//
// Each activation is split into pieces on which it is linear, convex or
// concave. On a piece where g is linear or concave its minimum is at an end
// of the piece; where g is convex, for any t in the piece
//
//	g(z) >= g(t) + g'(t) (z - t)        (tangent below a convex function)
//
// and t is chosen near the stationary point (phi'(t) = lambda), so the bound
// is tight; it stays sound however inexact t is. Maxima are symmetric.

// curvature is the shape of an activation on a piece.
type curvature int

const (
	linear curvature = iota
	convex
	concave
)

// piece is a maximal interval [lo, hi] on which an activation is linear,
// convex or concave (and smooth inside).
type piece struct {
	lo, hi float64
	curv   curvature
}

// pieces returns the pieces of a, in increasing order, covering the line:
// the first n of ps (an array, so that the relaxation of every neuron
// does not allocate).
func pieces(a nn.Activation) (ps [3]piece, n int) {
	inf := math.Inf(1)
	switch a.Kind {
	case nn.ReLU, nn.LeakyReLU:
		return [3]piece{{-inf, 0, linear}, {0, inf, linear}}, 2
	case nn.HardTanh:
		return [3]piece{{-inf, a.Lo, linear}, {a.Lo, a.Hi, linear}, {a.Hi, inf, linear}}, 3
	case nn.Tanh, nn.Sigmoid:
		return [3]piece{{-inf, 0, convex}, {0, inf, concave}}, 2
	case nn.ELU:
		c := linear
		if a.Alpha > 0 {
			c = convex
		} else if a.Alpha < 0 {
			c = concave
		}
		return [3]piece{{-inf, 0, c}, {0, inf, linear}}, 2
	}
	return [3]piece{{-inf, inf, linear}}, 1
}

// gapDown returns a lower bound of phi(z) - lambda z.
func gapDown(a nn.Activation, lambda, z float64) float64 {
	return outward.SubDown(actDown(a, z), outward.MulUp(lambda, z))
}

// gapUp returns an upper bound of phi(z) - lambda z.
func gapUp(a nn.Activation, lambda, z float64) float64 {
	return outward.SubUp(actUp(a, z), outward.MulDown(lambda, z))
}

// minGap returns a lower bound of min over [l, u] of phi(z) - lambda z.
func minGap(a nn.Activation, lambda, l, u float64) float64 {
	return extremeGap(a, lambda, l, u, false)
}

// maxGap returns an upper bound of max over [l, u] of phi(z) - lambda z.
func maxGap(a nn.Activation, lambda, l, u float64) float64 {
	return extremeGap(a, lambda, l, u, true)
}

// extremeGap bounds the maximum (upper) or minimum of g = phi - lambda z on
// [l, u] piece by piece.
func extremeGap(a nn.Activation, lambda, l, u float64, upper bool) float64 {
	best := math.Inf(1)
	if upper {
		best = math.Inf(-1)
	}
	ps, n := pieces(a)
	for _, pc := range ps[:n] {
		p, q := max(pc.lo, l), min(pc.hi, u)
		if p > q {
			continue
		}
		var v float64
		switch {
		case upper && pc.curv == concave:
			v = tangentGap(a, lambda, p, q, true)
		case !upper && pc.curv == convex:
			v = tangentGap(a, lambda, p, q, false)
		case upper:
			v = max(gapUp(a, lambda, p), gapUp(a, lambda, q))
		default:
			v = min(gapDown(a, lambda, p), gapDown(a, lambda, q))
		}
		if upper {
			best = max(best, v)
		} else {
			best = min(best, v)
		}
	}
	return best
}

// tangentGap bounds min (or, upper, max) of g on [p, q], where g is convex
// (concave) on [p, q], by the tangent at t = the stationary point of g
// clamped to [p, q]:
//
//	g(z) >= g(t) + g'(t) (z - t) >= g(t) + min(0, g'(t) (p - t), g'(t) (q - t)).
func tangentGap(a nn.Activation, lambda, p, q float64, upper bool) float64 {
	t := min(max(stationary(a, lambda, p, q, upper), p), q)
	d := derivative(a, t).Sub(Point(lambda))
	left := d.Scale(Interval{outward.SubDown(p, t), outward.SubUp(p, t)})
	right := d.Scale(Interval{outward.SubDown(q, t), outward.SubUp(q, t)})
	if upper {
		return outward.AddUp(gapUp(a, lambda, t), max(0, left.Hi, right.Hi))
	}
	return outward.AddDown(gapDown(a, lambda, t), min(0, left.Lo, right.Lo))
}

// derivative returns an enclosure of phi'(t) on a smooth piece of a
// (tanh, sigmoid, or the negative piece of ELU).
func derivative(a nn.Activation, t float64) Interval {
	var v float64
	switch a.Kind {
	case nn.Tanh, nn.Sigmoid:
		v = smoothSlope(a, t)
	case nn.ELU:
		v = a.Alpha * math.Exp(t)
	default:
		return Point(a.Apply(1) - a.Apply(0))
	}
	lo, hi := outward.LibDown(v), outward.LibUp(v)
	if lo > hi {
		lo, hi = hi, lo
	}
	return Interval{lo, hi}
}

// stationary returns an approximation of the point of [p, q] (a piece of a
// where g = phi - lambda z is strictly convex or concave) where g'(z) = 0, or
// the end of [p, q] where g is extreme when g' has one sign there. Only
// tightness, not soundness, depends on its accuracy.
func stationary(a nn.Activation, lambda, p, q float64, upper bool) float64 {
	mid := p/2 + q/2
	// g' is increasing on a convex piece, decreasing on a concave one.
	increasing := !upper
	var z float64
	ok := false
	switch a.Kind {
	case nn.Tanh:
		if lambda > 0 && lambda < 1 {
			z, ok = math.Acosh(1/math.Sqrt(lambda)), true // sech^2 z = lambda
			if mid < 0 {
				z = -z
			}
		}
	case nn.Sigmoid:
		if lambda > 0 && lambda < 0.25 {
			s := (1 - math.Sqrt(1-4*lambda)) / 2 // s(1-s) = lambda, s <= 1/2
			z, ok = math.Log(s/(1-s)), true
			if mid > 0 {
				z = -z
			}
		}
	case nn.ELU:
		if r := lambda / a.Alpha; r > 0 {
			z, ok = math.Log(r), true
		}
	}
	if ok {
		return z
	}
	// No stationary point: g is monotone on the piece.
	rising := derivative(a, mid).Lo > lambda
	if rising == increasing {
		return p // g' > 0 and convex: minimum at p; or g' < 0 and concave: maximum at p
	}
	return q
}
