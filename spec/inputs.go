package spec

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nnbound/nnbound/quantise"
)

// ErrBox reports an ill-formed box.
var ErrBox = errors.New("invalid box")

// ErrInputs reports an ill-formed input set.
var ErrInputs = errors.New("invalid inputs")

// Box is the axis-aligned box {x : Lo <= x <= Hi}.
type Box struct {
	Lo, Hi []float64
}

// Dim returns the dimension of b.
func (b Box) Dim() int { return len(b.Lo) }

// Validate reports a box with no coordinates, mismatched lengths, a
// non-finite end or Lo > Hi, naming the coordinate.
func (b Box) Validate() error {
	if len(b.Lo) == 0 {
		return fmt.Errorf("spec: box has no coordinates: %w", ErrBox)
	}
	if len(b.Lo) != len(b.Hi) {
		return fmt.Errorf("spec: box has %d lower and %d upper ends: %w", len(b.Lo), len(b.Hi), ErrBox)
	}
	for i := range b.Lo {
		lo, hi := b.Lo[i], b.Hi[i]
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return fmt.Errorf("spec: box coordinate %d is [%v, %v]: %w", i+1, lo, hi, ErrBox)
		}
		if lo > hi {
			return fmt.Errorf("spec: box coordinate %d is inverted: lo %v > hi %v: %w", i+1, lo, hi, ErrBox)
		}
	}
	return nil
}

// Ball returns the L-inf ball of radius r about x clipped to the domain
// [lo, hi] in every coordinate,
//
//	{x' : |x'_i - x_i| <= r, lo <= x'_i <= hi},
//
// the input set of a test image; a coordinate of x outside the domain
// gives the domain's nearest end, so that the box is never inverted.
func Ball(x []float64, r, lo, hi float64) Box {
	b := Box{Lo: make([]float64, len(x)), Hi: make([]float64, len(x))}
	for i, v := range x {
		b.Lo[i], b.Hi[i] = min(max(v-r, lo), hi), max(min(v+r, hi), lo)
	}
	return b
}

// Contains reports whether x lies in b.
func (b Box) Contains(x []float64) bool {
	if len(x) != len(b.Lo) {
		return false
	}
	for i, v := range x {
		if v < b.Lo[i] || v > b.Hi[i] {
			return false
		}
	}
	return true
}

// Pairing says how the input x2 of the second network relates to the input
// x1 of the first.
type Pairing int

// The pairings.
const (
	// SameInput: x2 = x1 (pruned, float16 or weights-only quantised copies).
	SameInput Pairing = iota
	// Independent: x1 and x2 range over the box independently (the paper's
	// similarity problem, and its Table 1 "self-compare" mode).
	Independent
	// QuantisedInput: x2 = q(x1) elementwise, for the fixed-point input
	// quantiser q of Inputs.Quant.
	QuantisedInput
)

var pairingNames = [...]string{"same", "independent", "quantised"}

// String returns the pairing's name: "same", "independent" or "quantised".
func (p Pairing) String() string {
	if p < 0 || int(p) >= len(pairingNames) {
		return fmt.Sprintf("Pairing(%d)", int(p))
	}
	return pairingNames[p]
}

// ParsePairing returns the pairing named s (see Pairing.String).
func ParsePairing(s string) (Pairing, error) {
	for i, n := range pairingNames {
		if n == s {
			return Pairing(i), nil
		}
	}
	return 0, fmt.Errorf("spec: unknown pairing %q (want same, independent or quantised): %w", s, ErrInputs)
}

// Inputs is the set of input pairs (x1, x2) a bound covers: x1 anywhere in
// Box and x2 related to x1 by Pairing (for Independent, x2 anywhere in Box).
type Inputs struct {
	Box     Box
	Pairing Pairing
	// Quant is the input quantiser q when Pairing is QuantisedInput.
	Quant quantise.Format
}

// X2 returns the input of the second network paired with x1 (for
// Independent pairing, x1 itself: a caller choosing x2 freely does so
// itself). For QuantisedInput it is Quant.Quantise elementwise: rounded onto
// the grid and, if Quant saturates, clamped to its range.
func (in Inputs) X2(x1 []float64) []float64 {
	if in.Pairing != QuantisedInput {
		return x1
	}
	x2 := make([]float64, len(x1))
	for i, v := range x1 {
		x2[i], _ = in.Quant.Quantise(v)
	}
	return x2
}

// Clone returns a copy of in that shares no slice with it.
func (in Inputs) Clone() Inputs {
	in.Box = Box{Lo: slices.Clone(in.Box.Lo), Hi: slices.Clone(in.Box.Hi)}
	return in
}

// Validate checks the box, the pairing and, for QuantisedInput, the
// quantiser's rounding mode.
func (in Inputs) Validate() error {
	if err := in.Box.Validate(); err != nil {
		return err
	}
	if in.Pairing < SameInput || in.Pairing > QuantisedInput {
		return fmt.Errorf("spec: unknown pairing %d: %w", int(in.Pairing), ErrInputs)
	}
	if in.Pairing == QuantisedInput {
		if r := in.Quant.Rounding; r < quantise.Trunc || r > quantise.Floor {
			return fmt.Errorf("spec: input quantiser has unknown rounding %d: %w", int(r), ErrInputs)
		}
		if f := in.Quant.FracBits; f < 0 || f > 60 {
			return fmt.Errorf("spec: input quantiser has %d fractional bits, want 0..60: %w", f, ErrInputs)
		}
	}
	return nil
}

// Describe prints b compactly: "[-1, 1]" when one interval holds
// for all n inputs (with "^n" when n > 1), else the list of intervals.
func (b Box) Describe() string {
	same := true
	for i := range b.Lo {
		same = same && b.Lo[i] == b.Lo[0] && b.Hi[i] == b.Hi[0]
	}
	if len(b.Lo) == 0 {
		return "[]"
	}
	if same {
		s := fmt.Sprintf("[%s, %s]", fmtG(b.Lo[0]), fmtG(b.Hi[0]))
		if len(b.Lo) > 1 {
			s += fmt.Sprintf("^%d", len(b.Lo))
		}
		return s
	}
	parts := make([]string, len(b.Lo))
	for i := range b.Lo {
		parts[i] = fmt.Sprintf("[%s, %s]", fmtG(b.Lo[i]), fmtG(b.Hi[i]))
	}
	if len(parts) > 4 {
		return fmt.Sprintf("%s x %s x ... x %s (%d inputs)", parts[0], parts[1], parts[len(parts)-1], len(parts))
	}
	return strings.Join(parts, " x ")
}

// fmtG formats x with up to 6 significant digits.
func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
