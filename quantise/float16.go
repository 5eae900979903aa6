package quantise

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/nn"
)

// Float16Max is the largest finite IEEE 754 half-precision value.
const Float16Max = 65504

// RoundFloat16 returns x rounded to the nearest IEEE 754 binary16 value, ties
// to even, as a float64, with a single rounding from float64 (as numpy's
// float16(x) does). Half precision has 11 significant bits, exponents down
// to -14 and subnormals down to 2^-24, so
//
//	ulp(x) = 2^max(e-10, -24)   for 2^e <= |x| < 2^(e+1),
//
// and the result is ulp * roundToEven(x / ulp). Magnitudes that round above
// Float16Max (from 65520 on) give ±Inf; NaN gives NaN; the sign of zero is
// kept.
func RoundFloat16(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	_, exp := math.Frexp(x) // |x| = frac * 2^exp, frac in [0.5, 1): e = exp-1
	ulp := max(exp-11, -24)
	r := math.Ldexp(math.RoundToEven(math.Ldexp(x, -ulp)), ulp)
	if math.Abs(r) > Float16Max {
		return math.Copysign(math.Inf(1), x)
	}
	if r == 0 {
		return math.Copysign(0, x)
	}
	return r
}

// Float16 returns the copy of net with every weight and bias rounded to
// IEEE half precision (RoundFloat16), the compression used by the ReluDiff,
// NeuroDiff and VeryDiff benchmarks. A parameter that overflows half
// precision is an error wrapping ErrRange. net is not modified.
func Float16(net *nn.Network) (*nn.Network, error) {
	if err := net.Validate(); err != nil {
		return nil, fmt.Errorf("quantise: %w", err)
	}
	if err := net.RequirePlain("float16 rounding"); err != nil {
		return nil, fmt.Errorf("quantise: %w", err)
	}
	q := net.Clone()
	for k, l := range q.Layers {
		if l.Conv != nil {
			for i, w := range l.Conv.Kernel {
				if l.Conv.Kernel[i] = RoundFloat16(w); math.IsInf(l.Conv.Kernel[i], 0) {
					return nil, fmt.Errorf("quantise: layer %d kernel value %d = %g overflows float16 (largest %d): %w",
						k, i, w, Float16Max, ErrRange)
				}
			}
		}
		for i := range l.Out() {
			if l.W == nil {
				break // a convolution: its kernel is rounded above
			}
			row := l.W.RawRowView(i)
			for j, w := range row {
				if row[j] = RoundFloat16(w); math.IsInf(row[j], 0) {
					return nil, fmt.Errorf("quantise: layer %d weight (%d,%d) = %g overflows float16 (largest %d): %w",
						k, i, j, w, Float16Max, ErrRange)
				}
			}
		}
		for i, b := range l.B {
			if l.B[i] = RoundFloat16(b); math.IsInf(l.B[i], 0) {
				return nil, fmt.Errorf("quantise: layer %d bias %d = %g overflows float16 (largest %d): %w",
					k, i, b, Float16Max, ErrRange)
			}
		}
	}
	return q, nil
}
