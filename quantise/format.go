// Package quantise turns a network into its fixed-point <IB,FB> or IEEE
// float16 copy, as in Section 3 of Li, Drummond and Duncan (L4DC 2021).
//
// The paper's quantiser, and the default here, truncates toward zero:
//
//	q(s) = trunc(s * 2^FB) / 2^FB
package quantise

import (
	"fmt"
	"math"
)

// Rounding is how a value is mapped onto the grid of multiples of 2^-FB.
type Rounding int

// The rounding modes.
const (
	Trunc   Rounding = iota // toward zero (the paper's; default)
	Nearest                 // to nearest, ties to even
	Floor                   // toward minus infinity
)

var roundingNames = [...]string{"trunc", "nearest", "floor"}

// String returns the name used on the command line.
func (r Rounding) String() string {
	if r < 0 || int(r) >= len(roundingNames) {
		return fmt.Sprintf("Rounding(%d)", int(r))
	}
	return roundingNames[r]
}

// ParseRounding returns the rounding mode named s.
func ParseRounding(s string) (Rounding, error) {
	for i, n := range roundingNames {
		if n == s {
			return Rounding(i), nil
		}
	}
	return 0, fmt.Errorf("quantise: unknown rounding %q (want trunc, nearest or floor)", s)
}

// Format is a fixed-point format <IB,FB>: FracBits fractional bits and, when
// IntBits > 0, IntBits integer bits (values must then lie in
// (-2^IntBits, 2^IntBits)).
type Format struct {
	IntBits  int // 0 means unbounded
	FracBits int
	Rounding Rounding
	// Saturate clamps out-of-range values to the largest representable
	// magnitude instead of reporting an error.
	Saturate bool
}

// Step returns the quantisation step 2^-FracBits.
func (f Format) Step() float64 { return math.Ldexp(1, -f.FracBits) }

// Round returns s rounded onto the grid of f (no range check).
func (f Format) Round(s float64) float64 {
	t := math.Ldexp(s, f.FracBits)
	switch f.Rounding {
	case Nearest:
		t = math.RoundToEven(t)
	case Floor:
		t = math.Floor(t)
	default:
		t = math.Trunc(t)
	}
	return math.Ldexp(t, -f.FracBits)
}
