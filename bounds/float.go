package bounds

import "math"

// Floating-point soundness.
//
// Every bound this package returns is an enclosure of the exact real value,
// not of its float64 evaluation. Each concretised bound is computed in
// float64 and then moved outward by a margin that dominates the rounding
// error of the computation, and finally by one more ulp with math.Nextafter.
//
// For a dot product s = b + sum_j w_j x_j of n terms evaluated by recursive
// summation, Higham (Accuracy and Stability of Numerical Algorithms, 2nd ed.,
// eq. 3.5) gives
//
//	|fl(s) - s| <= gamma_{n+1} (|b| + sum_j |w_j x_j|),  gamma_m = m u / (1 - m u),
//
// with u = 2^-53, plus at most 2^-1075 per product that underflows. The
// margin dotErr uses 2 (n+2) u in place of gamma_{n+1}, which also covers
// the rounding of the margin's own evaluation while (n+2) u < 1/4, and
// (n+2) 2^-1074 for underflow.
//
// Elementary functions (math.Tanh, math.Exp, math.Expm1, math.Log) are not
// correctly rounded; their error is a few ulps at most. Values obtained from
// them are widened by the relative margin libRel = 2^-44 (4096 ulps) plus the
// absolute margin tiny, far above the library's error.

const (
	unitRound = 0x1p-53   // u, the unit roundoff of float64
	tiny      = 0x1p-1074 // the smallest positive subnormal
	libRel    = 0x1p-44   // relative margin for elementary-function values
)

// dotErr returns a bound on the rounding error of a float64 dot product of n
// terms (plus one bias) whose absolute values sum to absSum.
func dotErr(absSum float64, n int) float64 {
	m := float64(n + 2)
	return 2*m*unitRound*absSum + m*tiny
}

// down returns a float64 no greater than v - err (err >= 0); -Inf when the
// computation overflowed into NaN (Inf - Inf).
func down(v, err float64) float64 {
	r := v - err
	if math.IsNaN(r) {
		return math.Inf(-1)
	}
	return math.Nextafter(r, math.Inf(-1))
}

// up returns a float64 no less than v + err (err >= 0); +Inf when the
// computation overflowed into NaN.
func up(v, err float64) float64 {
	r := v + err
	if math.IsNaN(r) {
		return math.Inf(1)
	}
	return math.Nextafter(r, math.Inf(1))
}

// libDown returns a lower bound of the exact value approximated by v, the
// result of a short computation with elementary functions.
func libDown(v float64) float64 {
	return down(v, libRel*math.Abs(v)+0x1p-1000)
}

// libUp returns an upper bound of the exact value approximated by v.
func libUp(v float64) float64 {
	return up(v, libRel*math.Abs(v)+0x1p-1000)
}

// mulDown returns a lower bound of the exact product a*b: the rounded
// product, moved down one ulp only when it exceeds the exact one. The
// rounding error a*b - fl(a*b) is exact as math.FMA(a, b, -p) unless the
// product is near underflow, where a margin is used instead.
func mulDown(a, b float64) float64 {
	p := a * b
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return orInf(p, -1)
	}
	if math.Abs(p) < 0x1p-960 {
		return down(p, unitRound*math.Abs(p)+tiny)
	}
	if math.FMA(a, b, -p) < 0 {
		return math.Nextafter(p, math.Inf(-1))
	}
	return p
}

// mulUp returns an upper bound of the exact product a*b.
func mulUp(a, b float64) float64 {
	p := a * b
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return orInf(p, 1)
	}
	if math.Abs(p) < 0x1p-960 {
		return up(p, unitRound*math.Abs(p)+tiny)
	}
	if math.FMA(a, b, -p) > 0 {
		return math.Nextafter(p, math.Inf(1))
	}
	return p
}

// sumErr returns s = fl(a + b) and the exact error a + b - s (Knuth's
// TwoSum; exact barring overflow).
func sumErr(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// subDown returns a lower bound of the exact difference a-b.
func subDown(a, b float64) float64 { return addDown(a, -b) }

// subUp returns an upper bound of the exact difference a-b.
func subUp(a, b float64) float64 { return addUp(a, -b) }

// addDown returns a lower bound of the exact sum a+b.
func addDown(a, b float64) float64 {
	s, e := sumErr(a, b)
	if math.IsNaN(s) {
		return math.Inf(-1)
	}
	if e < 0 || math.IsInf(s, 0) || math.IsNaN(e) {
		return math.Nextafter(s, math.Inf(-1))
	}
	return s
}

// addUp returns an upper bound of the exact sum a+b.
func addUp(a, b float64) float64 {
	s, e := sumErr(a, b)
	if math.IsNaN(s) {
		return math.Inf(1)
	}
	if e > 0 || math.IsInf(s, 0) || math.IsNaN(e) {
		return math.Nextafter(s, math.Inf(1))
	}
	return s
}

// orInf returns p unless it is NaN (0 * Inf), then the infinity of sign dir:
// a bound in direction dir of an undefined product is that infinity.
func orInf(p float64, dir int) float64 {
	if math.IsNaN(p) {
		return math.Inf(dir)
	}
	return p
}
