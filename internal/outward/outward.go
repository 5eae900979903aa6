// Package outward is nnbound's outward-rounded float64 arithmetic: the one
// place where a computed value is moved so that it bounds the exact real
// value it approximates, used by bound propagation (bounds), the quadratic
// constraints (qc) and the check of every certificate (certify).
//
// Results of the directed operations satisfy
//
//	AddDown(a, b) <= a + b <= AddUp(a, b)      (exact real sum)
//	MulDown(a, b) <= a * b <= MulUp(a, b)      (exact real product)
//	SqrtDown(v) <= sqrt(v) <= SqrtUp(v)
//
// and never exceed the float64 result by more than one ulp (near underflow,
// a few multiples of 2^-1074). The sum's rounding error is exact by
// Knuth's TwoSum, the product's by math.FMA, so the value moves only when
// the rounded result lies on the wrong side. An overflow into NaN (Inf -
// Inf, 0 * Inf) gives the infinity in the direction of rounding.
//
// For a dot product s = b + sum_j w_j x_j of n terms evaluated by recursive
// summation, Higham (Accuracy and Stability of Numerical Algorithms, 2nd ed.,
// eq. 3.5) gives
//
//	|fl(s) - s| <= gamma_{n+1} (|b| + sum_j |w_j x_j|),  gamma_m = m u / (1 - m u),
//
// with u = 2^-53, plus at most 2^-1075 per product that underflows. DotErr
// uses 2 (n+2) u in place of gamma_{n+1}, which also covers the rounding of
// the margin's own evaluation while (n+2) u < 1/4, and (n+2) 2^-1074 for
// underflow.
//
// Elementary functions (math.Tanh, math.Exp, math.Expm1, math.Log) are not
// correctly rounded; their error is a few ulps at most. LibUp and LibDown
// widen values obtained from them by the relative margin LibRel = 2^-44
// (4096 ulps) plus 2^-1000, far above the library's error.
package outward

import "math"

const (
	// Unit is u = 2^-53, the unit roundoff of float64.
	Unit = 0x1p-53
	// Tiny is 2^-1074, the smallest positive subnormal.
	Tiny = 0x1p-1074
	// LibRel is the relative margin of LibUp and LibDown.
	LibRel = 0x1p-44
)

// Up returns the float64 after v toward +Inf: an upper bound of every real
// whose rounding to nearest is v.
func Up(v float64) float64 { return math.Nextafter(v, math.Inf(1)) }

// Down returns the float64 before v toward -Inf.
func Down(v float64) float64 { return math.Nextafter(v, math.Inf(-1)) }

// Ulp returns the distance from |v| to the next float64 above it.
func Ulp(v float64) float64 {
	v = math.Abs(v)
	return Up(v) - v
}

// DotErr returns a bound on the rounding error of a float64 dot product of
// n terms (plus one bias) whose absolute values sum to absSum.
func DotErr(absSum float64, n int) float64 {
	m := float64(n + 2)
	return 2*m*Unit*absSum + m*Tiny
}

// DownBy returns a float64 no greater than v - err (err >= 0); -Inf when
// the computation overflowed into NaN (Inf - Inf).
func DownBy(v, err float64) float64 {
	r := v - err
	if math.IsNaN(r) {
		return math.Inf(-1)
	}
	return Down(r)
}

// UpBy returns a float64 no less than v + err (err >= 0); +Inf when the
// computation overflowed into NaN.
func UpBy(v, err float64) float64 {
	r := v + err
	if math.IsNaN(r) {
		return math.Inf(1)
	}
	return Up(r)
}

// LibDown returns a lower bound of the exact value approximated by v, the
// result of a short computation with elementary functions.
func LibDown(v float64) float64 { return DownBy(v, LibRel*math.Abs(v)+0x1p-1000) }

// LibUp returns an upper bound of the exact value approximated by v.
func LibUp(v float64) float64 { return UpBy(v, LibRel*math.Abs(v)+0x1p-1000) }

// MulDown returns a lower bound of the exact product a*b: the rounded
// product, moved down one ulp only when it exceeds the exact one. The
// rounding error a*b - fl(a*b) is exact as math.FMA(a, b, -p) unless the
// product is near underflow, where a margin is used instead.
func MulDown(a, b float64) float64 {
	p := a * b
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return orInf(p, -1)
	}
	if math.Abs(p) < 0x1p-960 {
		return DownBy(p, Unit*math.Abs(p)+Tiny)
	}
	if math.FMA(a, b, -p) < 0 {
		return Down(p)
	}
	return p
}

// MulUp returns an upper bound of the exact product a*b.
func MulUp(a, b float64) float64 {
	p := a * b
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return orInf(p, 1)
	}
	if math.Abs(p) < 0x1p-960 {
		return UpBy(p, Unit*math.Abs(p)+Tiny)
	}
	if math.FMA(a, b, -p) > 0 {
		return Up(p)
	}
	return p
}

// TwoSum returns s = fl(a + b) and the exact error a + b - s (Knuth's
// TwoSum; exact barring overflow).
func TwoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// SubDown returns a lower bound of the exact difference a-b.
func SubDown(a, b float64) float64 { return AddDown(a, -b) }

// SubUp returns an upper bound of the exact difference a-b.
func SubUp(a, b float64) float64 { return AddUp(a, -b) }

// AddDown returns a lower bound of the exact sum a+b.
func AddDown(a, b float64) float64 {
	s, e := TwoSum(a, b)
	if math.IsNaN(s) {
		return math.Inf(-1)
	}
	if e < 0 || math.IsInf(s, 0) || math.IsNaN(e) {
		return Down(s)
	}
	return s
}

// AddUp returns an upper bound of the exact sum a+b.
func AddUp(a, b float64) float64 {
	s, e := TwoSum(a, b)
	if math.IsNaN(s) {
		return math.Inf(1)
	}
	if e > 0 || math.IsInf(s, 0) || math.IsNaN(e) {
		return Up(s)
	}
	return s
}

// AddUpStep returns fl(a + b) moved up one ulp, a float64 >= a + b, without
// the exactness test of AddUp (so up to one ulp looser). The check of a
// certificate (certify) rounds this way; keeping it keeps its numbers.
func AddUpStep(a, b float64) float64 { return Up(a + b) }

// MulUpStep returns fl(a*b + Tiny) moved up one ulp, a float64 >= a * b for
// a, b >= 0 (Tiny covers a product that underflows), without the exactness
// test of MulUp. The check of a certificate (certify) rounds this way.
func MulUpStep(a, b float64) float64 { return Up(a*b + Tiny) }

// SqrtDown returns a lower bound of sqrt(v) for v >= 0, never below 0.
func SqrtDown(v float64) float64 { return max(Down(math.Sqrt(v)), 0) }

// SqrtUp returns an upper bound of sqrt(v) (math.Sqrt is correctly
// rounded, so one ulp suffices).
func SqrtUp(v float64) float64 { return Up(math.Sqrt(v)) }

// orInf returns p unless it is NaN (0 * Inf), then the infinity of sign dir:
// a bound in direction dir of an undefined product is that infinity.
func orInf(p float64, dir int) float64 {
	if math.IsNaN(p) {
		return math.Inf(dir)
	}
	return p
}
