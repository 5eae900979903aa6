// Package quantise turns a network into its fixed-point <IB,FB> or IEEE
// float16 copy, as in Section 3 of Li, Drummond and Duncan (L4DC 2021).
//
// The paper's quantiser, and the default here, truncates toward zero:
//
//	q(s) = trunc(s * 2^FB) / 2^FB
package quantise

import (
	"errors"
	"fmt"
	"math"
)

// ErrRange reports values outside the range of a format (fixed point with
// IntBits, or float16).
var ErrRange = errors.New("value out of range")

// ErrFormat reports an invalid Format or Options.
var ErrFormat = errors.New("invalid quantisation format")

// Limits of Format's fields. FracBits beyond 52 would not change a float64
// of magnitude at least 1, and a signed 64-bit word holds at most IntBits +
// FracBits = 63.
const (
	MaxFracBits = 52
	MaxWordBits = 63
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

// String returns "<IB,FB>" (IB is "inf" when unbounded), the rounding mode
// and ", saturating" when it saturates.
func (f Format) String() string {
	ib := "inf"
	if f.IntBits > 0 {
		ib = fmt.Sprint(f.IntBits)
	}
	s := fmt.Sprintf("<%s,%d> %v", ib, f.FracBits, f.Rounding)
	if f.Saturate {
		s += ", saturating"
	}
	return s
}

// Validate reports a format that cannot be used: FracBits outside
// [1, MaxFracBits], negative IntBits, IntBits+FracBits > MaxWordBits, an
// unknown rounding mode, or Saturate without IntBits.
func (f Format) Validate() error {
	if err := f.check(); err != nil {
		return fmt.Errorf("quantise: %w", err)
	}
	return nil
}

// check is Validate without the package prefix, for callers that say
// which format is wrong.
func (f Format) check() error {
	switch {
	case f.FracBits < 1 || f.FracBits > MaxFracBits:
		return fmt.Errorf("FracBits is %d, want 1 to %d: %w", f.FracBits, MaxFracBits, ErrFormat)
	case f.IntBits < 0:
		return fmt.Errorf("IntBits is %d, want 0 (unbounded) or more: %w", f.IntBits, ErrFormat)
	case f.IntBits+f.FracBits > MaxWordBits:
		return fmt.Errorf("IntBits+FracBits is %d, want at most %d: %w", f.IntBits+f.FracBits, MaxWordBits, ErrFormat)
	case f.Rounding < Trunc || f.Rounding > Floor:
		return fmt.Errorf("unknown rounding %v: %w", f.Rounding, ErrFormat)
	case f.Saturate && f.IntBits == 0:
		return fmt.Errorf("Saturate needs IntBits: %w", ErrFormat)
	}
	return nil
}

// Limit returns the largest representable magnitude 2^IntBits - 2^-FracBits,
// or +Inf when IntBits is 0.
func (f Format) Limit() float64 {
	if f.IntBits == 0 {
		return math.Inf(1)
	}
	return math.Ldexp(1, f.IntBits) - f.Step()
}

// Quantise returns s rounded onto the grid of f and whether it was out of
// range (|Round(s)| > Limit(), or s is NaN). An out-of-range value is
// clamped to ±Limit() when f saturates and returned unclamped otherwise.
func (f Format) Quantise(s float64) (q float64, outOfRange bool) {
	if math.IsNaN(s) {
		return s, true
	}
	q = f.Round(s)
	if lim := f.Limit(); math.Abs(q) > lim {
		if f.Saturate {
			return math.Copysign(lim, q), true
		}
		return q, true
	}
	return q, false
}

// Step returns the quantisation step 2^-FracBits.
func (f Format) Step() float64 { return math.Ldexp(1, -f.FracBits) }

// Round returns s rounded onto the grid of f (no range check). Values of
// magnitude at least 2^52 are integers, on every grid, and come back
// unchanged (scaling them by 2^FracBits could overflow).
func (f Format) Round(s float64) float64 {
	if math.Abs(s) >= 1<<52 {
		return s
	}
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
