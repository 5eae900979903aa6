package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Relaxations of the smooth elementwise functions of transformers
// (nn.Unary: exp, sqrt, reciprocal, square, cube, erf, gelu).
//
// On [l, u] both lines take the chord's slope a = (f(u) - f(l)) / (u - l)
// and the offsets are the extremes of psi(t) = f(t) - a t,
//
//	min psi + a t  <=  f(t)  <=  max psi + a t,
//
// so for a convex f the upper line is the chord and the lower one the
// parallel tangent (the reverse for a concave f), and for erf and gelu,
// neither, the lines are the tightest of that slope. The extremes are
// bounded rigorously on K pieces [t0, t1] of [l, u]: with psi(t0) = p0,
// psi(t1) = p1 and psi' in [dlo, dhi] on the piece (from the monotone
// pieces of f', unaryDeriv), psi <= p0 + dhi s and psi <= p1 - dlo (h - s)
// at t0 + s (h = t1 - t0), and for dlo < 0 < dhi any convex combination
// of the two, with lambda = -dlo / (dhi - dlo) independent of s,
//
//	max psi  <=  lambda p0 + (1 - lambda) (p1 - dlo h),
//
// which holds for any lambda in [0, 1], so its rounding does not matter.
// Values of f are widened by outward.LibUp/LibDown (library error; for
// gelu also the cancellation of its float64 evaluation: unaryVal), the
// arithmetic by 8 u of its terms' magnitudes. The image of a monotone
// function (or the square) is its values at the ends, widened; that of
// gelu the same bound as the lines' with a = 0. Outside a function's domain (sqrt below 0, a
// reciprocal of an interval holding 0) or where exp overflows, the lines
// are unbounded.

// unaryPieces is K, the number of pieces on which the offsets are bounded.
const unaryPieces = 16

// unaryLines returns lines below and above u.F on x.
func unaryLines(u nn.Unary, x Interval) (lower, upper line) {
	if !unaryDomain(u, x) { // the image's constant lines
		img := unaryImage(u, x)
		return line{0, img.Lo}, line{0, img.Hi}
	}
	if !(x.Hi > x.Lo) {
		return line{0, unaryVal(u, x.Lo, false)}, line{0, unaryVal(u, x.Hi, true)}
	}
	a := (u.Apply(x.Hi) - u.Apply(x.Lo)) / (x.Hi - x.Lo)
	if a-a != 0 {
		a = 0
	}
	lo, hi := -psiMax(u, a, x, -1), psiMax(u, a, x, 1)
	if lo != lo || hi != hi {
		return line{0, math.Inf(-1)}, line{0, math.Inf(1)}
	}
	return line{a, lo}, line{a, hi}
}

// unaryImage returns an enclosure of u.F over x; x may be unbounded for
// the monotone functions (exp of [l, +Inf] is [exp(l), +Inf], a
// reciprocal of [l > 0, +Inf] is [0, 1/l]).
func unaryImage(u nn.Unary, x Interval) Interval {
	free := Interval{math.Inf(-1), math.Inf(1)}
	switch {
	case x.Lo != x.Lo || x.Hi != x.Hi:
		return free
	case u.F == nn.Sqrt && x.Lo < 0, u.F == nn.Reciprocal && !(x.Lo > 0 || x.Hi < 0):
		return free
	case u.F == nn.Square || u.F == nn.GELU:
		if !finiteInterval(x) {
			return free
		}
	}
	if !(x.Hi > x.Lo) {
		return Interval{unaryVal(u, x.Lo, false), unaryVal(u, x.Hi, true)}
	}
	var out Interval
	f := func(t float64, up bool) float64 { return unaryVal(u, t, up) }
	switch u.F {
	case nn.Exp, nn.Sqrt: // increasing, never negative
		out = Interval{max(f(x.Lo, false), 0), f(x.Hi, true)}
	case nn.Cube, nn.Erf: // increasing
		out = Interval{f(x.Lo, false), f(x.Hi, true)}
	case nn.Reciprocal: // decreasing on each side of 0
		out = Interval{f(x.Hi, false), f(x.Lo, true)}
	case nn.Square:
		out = Interval{min(f(x.Lo, false), f(x.Hi, false)), max(f(x.Lo, true), f(x.Hi, true))}
		if x.Straddles() {
			out.Lo = 0
		}
		out.Lo = max(out.Lo, 0)
	default:
		out = Interval{-psiMax(u, 0, x, -1), psiMax(u, 0, x, 1)}
	}
	if out.Lo != out.Lo || out.Hi != out.Hi {
		return Interval{math.Inf(-1), math.Inf(1)}
	}
	return out
}

// unaryDomain reports whether x is a finite interval on which u.F is
// finite and its relaxation is computed.
func unaryDomain(u nn.Unary, x Interval) bool {
	if math.IsInf(x.Lo, 0) || math.IsInf(x.Hi, 0) || x.Lo != x.Lo || x.Hi != x.Hi {
		return false
	}
	switch u.F {
	case nn.Sqrt:
		return x.Lo >= 0
	case nn.Reciprocal:
		return x.Lo > 0 || x.Hi < 0
	case nn.Exp:
		return x.Hi < 700
	}
	return true
}

// psiMax returns an upper bound of sign (f(t) - a t) over x (see the top
// of the file).
func psiMax(u nn.Unary, a float64, x Interval, sign float64) float64 {
	p := func(t float64) float64 { // an upper bound of sign psi(t)
		if sign > 0 {
			return outward.SubUp(unaryVal(u, t, true), outward.MulDown(a, t))
		}
		return -outward.SubDown(unaryVal(u, t, false), outward.MulUp(a, t))
	}
	best := math.Inf(-1)
	t0, p0 := x.Lo, p(x.Lo)
	for k := 1; k <= unaryPieces; k++ {
		t1 := x.Lo + (x.Hi-x.Lo)*float64(k)/unaryPieces
		if k == unaryPieces {
			t1 = x.Hi
		}
		if !(t1 > t0) {
			continue
		}
		p1 := p(t1)
		dl, dh := unaryDeriv(u, t0, t1)
		dlo, dhi := outward.SubDown(outward.LibDown(dl), a), outward.SubUp(outward.LibUp(dh), a)
		if sign < 0 {
			dlo, dhi = -dhi, -dlo
		}
		best = max(best, pieceMax(p0, p1, dlo, dhi, outward.SubUp(t1, t0)))
		t0, p0 = t1, p1
	}
	return best
}

// unaryVal returns an upper (up) or lower bound of both the exact u.F(t)
// and its float64 evaluation u.Apply(t). GELU's 1 + erf(c t) cancels for
// c t << 0: its exact value t erfc(-c t) / 2 is computed instead and
// widened by 4 u |t|, the absolute error of Apply's sum.
func unaryVal(u nn.Unary, t float64, up bool) float64 {
	v, e := u.Apply(t), 0.0
	if u.F == nn.GELU {
		v, e = t*math.Erfc(-u.C*t)/2, 4*outward.Unit*math.Abs(t)
	}
	if up {
		return outward.UpBy(outward.LibUp(v), e)
	}
	return outward.DownBy(outward.LibDown(v), e)
}

// pieceMax returns an upper bound of a function on a piece of width h
// with values at most p0 and p1 at its ends and slope in [dlo, dhi].
func pieceMax(p0, p1, dlo, dhi, h float64) float64 {
	switch {
	case dhi <= 0:
		return p0
	case dlo >= 0:
		return p1
	case math.IsInf(dlo, -1) && math.IsInf(dhi, 1):
		return math.Inf(1)
	case math.IsInf(dlo, -1):
		return outward.AddUp(p0, outward.MulUp(dhi, h))
	case math.IsInf(dhi, 1):
		return outward.AddUp(p1, outward.MulUp(-dlo, h))
	}
	lam := min(max(-dlo/(dhi-dlo), 0), 1)
	q := p1 - dlo*h
	v := lam*p0 + (1-lam)*q
	err := 8 * outward.Unit * (math.Abs(lam*p0) + (1-lam)*(math.Abs(p1)+math.Abs(dlo*h)))
	return outward.UpBy(v, err+0x1p-1000)
}

// unaryDeriv returns the range of f' over [t0, t1] (up to the library's
// rounding), from the monotone pieces of f'.
func unaryDeriv(u nn.Unary, t0, t1 float64) (lo, hi float64) {
	d0, d1 := u.Deriv(t0), u.Deriv(t1)
	lo, hi = min(d0, d1), max(d0, d1)
	in := func(t float64) bool { return t0 < t && t < t1 }
	switch u.F {
	case nn.Cube: // 3 t^2: least at 0
		if in(0) {
			lo = 0
		}
	case nn.Erf: // 2/sqrt(pi) exp(-t^2): largest at 0
		if in(0) {
			hi = u.Deriv(0)
		}
	case nn.GELU: // f'' = 2c/sqrt(pi) exp(-c^2 t^2) (1 - c^2 t^2): extremes at t = ±1/c
		if u.C != 0 {
			for _, t := range []float64{1 / u.C, -1 / u.C} {
				if in(t) {
					d := u.Deriv(t)
					lo, hi = min(lo, d), max(hi, d)
				}
			}
		}
	}
	return lo, hi
}

// mulLines returns planes below and above a b for a in x, b in y: the
// average of McCormick's two planes on each side,
//
//	a b >= (y.Lo + y.Hi)/2 a + (x.Lo + x.Hi)/2 b + C,
//
// whose worst gap is half a single plane's, with each offset the exact
// extreme of the bilinear a b - A a - B b over the box's corners, rounded
// outward (so any A, B in float64 give sound planes).
func mulLines(x, y Interval) (lower, upper plane) {
	if !finiteInterval(x) || !finiteInterval(y) {
		return plane{0, 0, math.Inf(-1)}, plane{0, 0, math.Inf(1)}
	}
	a, b := y.Lo/2+y.Hi/2, x.Lo/2+x.Hi/2
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range []float64{x.Lo, x.Hi} {
		for _, t := range []float64{y.Lo, y.Hi} {
			dn := outward.SubDown(outward.SubDown(outward.MulDown(s, t), outward.MulUp(a, s)), outward.MulUp(b, t))
			up := outward.SubUp(outward.SubUp(outward.MulUp(s, t), outward.MulDown(a, s)), outward.MulDown(b, t))
			lo, hi = min(lo, dn), max(hi, up)
		}
	}
	return plane{a, b, lo}, plane{a, b, hi}
}

// mulImage returns an enclosure of a b for a in x, b in y.
func mulImage(x, y Interval) Interval {
	if !finiteInterval(x) || !finiteInterval(y) {
		return Interval{math.Inf(-1), math.Inf(1)}
	}
	out := Interval{math.Inf(1), math.Inf(-1)}
	for _, s := range []float64{x.Lo, x.Hi} {
		for _, t := range []float64{y.Lo, y.Hi} {
			out = Interval{min(out.Lo, outward.MulDown(s, t)), max(out.Hi, outward.MulUp(s, t))}
		}
	}
	return out
}

// finiteInterval reports whether both ends of x are finite.
func finiteInterval(x Interval) bool { return x.Lo-x.Lo == 0 && x.Hi-x.Hi == 0 }

// GraphOptionsFor returns the default settings for bounding g: those of
// DefaultGraphOptions, with full back-substitution (IntermediateBacksub)
// for a graph with products of computed values (a transformer), whose
// relaxations depend on both factors' bounds: a window of two nonlinear
// layers there spans less than one LayerNorm and leaves the bounds of
// vit_digits' logits unbounded or hundreds of times wider.
func GraphOptionsFor(g *nn.Graph) GraphOptions {
	o := DefaultGraphOptions()
	for _, n := range g.Nodes {
		if _, ok := n.Op.(nn.Mul); ok {
			o.Intermediate = IntermediateBacksub
		}
	}
	return o
}
