package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Second-order planes of a smooth function's difference
//
//	g(z, d) = f(z + d) - f(z)
//
// on a box Z x D with centre (z0, d0) and radii rz, rd. Taylor's theorem
// on the segment from the centre to (z, d) gives, with Dz = z - z0,
// Dd = d - d0 and (zeta, delta) a point of the box,
//
//	g(z, d) = g(z0, d0) + (f'(z0 + d0) - f'(z0)) Dz + f'(z0 + d0) Dd + R,
//	2 R = (f''(zeta + delta) - f''(zeta)) Dz^2 + f''(zeta + delta) (2 Dz Dd + Dd^2),
//
// and f''(zeta + delta) - f''(zeta) = f'''(eta) delta with eta between
// zeta and zeta + delta, so
//
//	|R| <= (max|f'''| |D| rz^2 + max|f''| (2 rz rd + rd^2)) / 2,
//
// the maxima over the hull of Z and Z + D. Where the difference d is
// narrow beside its size (a copy's weights rounded: d is nearly the same
// at every input of a small ball) this is far tighter than the mean value
// planes m d, M d, whose gap (M - m) |d| grows with the width of Z alone:
// R has no term in rz |d| but only in rz^2 |d| and rz rd. The planes'
// coefficients are float64 values near the derivatives at the centre; the
// distance to the true derivatives (enclosed on the rounded centre) times
// the radii joins the gap, so the planes hold for any rounding.

// taylorDiffPlanes returns the second-order planes below and above
// f(z + d) - f(z) on z x d, or ok false where f or its second or
// third derivative is not bounded on the box.
func taylorDiffPlanes(u nn.Unary, z, d Interval) (lower, upper plane, ok bool) {
	s := z.Add(d)
	h := Interval{min(z.Lo, s.Lo), max(z.Hi, s.Hi)}
	if !finiteInterval(d) || !unaryDomain(u, h) || (u.F == nn.Sqrt && !(h.Lo > 0)) {
		return plane{}, plane{}, false
	}
	d2, d3 := curvMax(u, h)
	z0, d0 := z.Lo/2+z.Hi/2, d.Lo/2+d.Hi/2
	rz := max(outward.SubUp(z.Hi, z0), outward.SubUp(z0, z.Lo))
	rd := max(outward.SubUp(d.Hi, d0), outward.SubUp(d0, d.Lo))
	s0 := Interval{outward.AddDown(z0, d0), outward.AddUp(z0, d0)}
	ps, pz := derivRange(u, s0), derivRange(u, Point(z0))
	b := ps.Lo/2 + ps.Hi/2
	a := b - (pz.Lo/2 + pz.Hi/2)
	// |f'(s0) - b| <= eb, |f'(s0) - f'(z0) - a| <= ea.
	eb := outward.SubUp(ps.Hi, ps.Lo)
	ea := outward.AddUp(outward.AddUp(eb, outward.SubUp(pz.Hi, pz.Lo)), outward.Ulp(a))
	// The gap: |R| plus the coefficients' errors times the radii.
	r3 := outward.MulUp(outward.MulUp(d3, d.Mag()), outward.MulUp(rz, rz))
	r2 := outward.MulUp(d2, outward.AddUp(outward.MulUp(2*rz, rd), outward.MulUp(rd, rd)))
	gap := outward.AddUp(outward.MulUp(0.5, outward.AddUp(r3, r2)), outward.AddUp(outward.MulUp(ea, rz), outward.MulUp(eb, rd)))
	g0 := unaryImage(u, s0).Sub(unaryImage(u, Point(z0)))
	if !finiteInterval(g0) || gap-gap != 0 || a-a != 0 || b-b != 0 {
		return plane{}, plane{}, false
	}
	// C = g0 -+ gap - a z0 - b d0, rounded outward.
	az, bd := Interval{outward.MulDown(a, z0), outward.MulUp(a, z0)}, Interval{outward.MulDown(b, d0), outward.MulUp(b, d0)}
	cLo := outward.SubDown(outward.SubDown(outward.SubDown(g0.Lo, gap), az.Hi), bd.Hi)
	cHi := outward.SubUp(outward.SubUp(outward.AddUp(g0.Hi, gap), az.Lo), bd.Lo)
	return plane{a, b, cLo}, plane{a, b, cHi}, cLo-cLo == 0 && cHi-cHi == 0
}

// derivRange returns an enclosure of f' on x (within f's domain).
func derivRange(u nn.Unary, x Interval) Interval {
	lo, hi := unaryDeriv(u, x.Lo, x.Hi)
	return Interval{outward.LibDown(lo), outward.LibUp(hi)}
}

// curvMax returns upper bounds of the magnitudes of f's second and third
// derivatives on x, an interval of f's domain (for Sqrt, of positive
// numbers): the largest magnitudes at the ends and at the critical points
// inside.
func curvMax(u nn.Unary, x Interval) (d2, d3 float64) {
	at := func(f func(t float64) float64, crit ...float64) float64 {
		m := max(math.Abs(f(x.Lo)), math.Abs(f(x.Hi)))
		for _, t := range crit {
			if x.Lo < t && t < x.Hi {
				m = max(m, math.Abs(f(t)))
			}
		}
		return outward.LibUp(m)
	}
	switch u.F {
	case nn.Exp:
		e := outward.LibUp(math.Exp(x.Hi))
		return e, e
	case nn.Reciprocal: // 2/t^3, -6/t^4: largest nearest 0
		t := min(math.Abs(x.Lo), math.Abs(x.Hi))
		return outward.LibUp(2 / (t * t * t)), outward.LibUp(6 / (t * t * t * t))
	case nn.Sqrt: // -t^(-3/2)/4, 3 t^(-5/2)/8: largest at the low end
		r := math.Sqrt(x.Lo)
		return outward.LibUp(0.25 / (x.Lo * r)), outward.LibUp(0.375 / (x.Lo * x.Lo * r))
	case nn.Square:
		return 2, 0
	case nn.Cube:
		return outward.LibUp(6 * x.Mag()), 6
	case nn.Erf: // f' = k exp(-t^2): f'' = -2 t f', f''' = (4 t^2 - 2) f'
		k := 2 / math.SqrtPi
		f2 := func(t float64) float64 { return -2 * t * k * math.Exp(-t*t) }
		f3 := func(t float64) float64 { return (4*t*t - 2) * k * math.Exp(-t*t) }
		return at(f2, -math.Sqrt(0.5), math.Sqrt(0.5)), at(f3, 0, -math.Sqrt(1.5), math.Sqrt(1.5))
	case nn.GELU: // with v = c t: f'' = 2c/sqrt(pi) e^(-v^2) (1 - v^2), f''' = 4c^2/sqrt(pi) e^(-v^2) v (v^2 - 2)
		c := u.C
		f2 := func(t float64) float64 { v := c * t; return 2 * c / math.SqrtPi * math.Exp(-v*v) * (1 - v*v) }
		f3 := func(t float64) float64 { v := c * t; return 4 * c * c / math.SqrtPi * math.Exp(-v*v) * v * (v*v - 2) }
		var c2, c3 []float64
		if c != 0 {
			for _, v := range []float64{0, math.Sqrt2, -math.Sqrt2} {
				c2 = append(c2, v/c)
			}
			for _, v2 := range []float64{(7 - math.Sqrt(33)) / 4, (7 + math.Sqrt(33)) / 4} {
				c3 = append(c3, math.Sqrt(v2)/c, -math.Sqrt(v2)/c)
			}
		}
		return at(f2, c2...), at(f3, c3...)
	}
	return math.Inf(1), math.Inf(1)
}
