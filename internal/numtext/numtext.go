// Package numtext formats numbers for people, as every printer of nnbound
// writes them: a few significant figures, exponents without padding
// ("1e-5", not "1e-05"), and short vectors with their middle elided.
package numtext

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Float formats x with sig significant digits, without the exponent's
// padding ("1e-5", not "1e-05"); "inf", "-inf" or "NaN" when not finite.
func Float(x float64, sig int) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return tidy(strconv.FormatFloat(x, 'g', sig, 64))
}

// tidy drops the padding of a formatted number's exponent: "1e-5", not
// "1e-05", "1e+20" as "1e20".
func tidy(s string) string {
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp := s[:i], s[i+1:]
		sign := ""
		if exp[0] == '-' || exp[0] == '+' {
			if exp[0] == '-' {
				sign = "-"
			}
			exp = exp[1:]
		}
		exp = strings.TrimLeft(exp, "0")
		if exp == "" {
			exp = "0"
		}
		s = mant + "e" + sign + exp
	}
	return s
}

// Up is Float rounded up: the decimal it prints is at least x (exactly,
// not after reading it back as a float64), so that a printed upper bound
// is one. Float rounds to nearest, which may print a bound below the
// certified one.
func Up(x float64, sig int) string {
	s := Float(x, sig)
	if math.IsNaN(x) || math.IsInf(x, 0) || atLeast(s, x) {
		return s
	}
	// Step x up by half a unit of the last digit, in exact arithmetic
	// (a subnormal's float64 neighbours are coarser than sig digits),
	// until the nearest decimal of sig digits is above it.
	e := strconv.FormatFloat(x, 'e', sig-1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	half, _, _ := big.ParseFloat("5e"+strconv.Itoa(exp-sig), 10, 256, big.ToNearestEven)
	t := new(big.Float).SetPrec(256).SetFloat64(x)
	for {
		t.Add(t, half)
		if s = tidy(t.Text('g', sig)); atLeast(s, x) {
			return s
		}
	}
}

// atLeast reports whether the decimal s is at least x, exactly: s is
// read rounded down, with bits to spare.
func atLeast(s string, x float64) bool {
	d, _, err := big.ParseFloat(s, 10, 256, big.ToNegativeInf)
	return err == nil && d.Cmp(new(big.Float).SetFloat64(x)) >= 0
}

// Vector prints a short vector: "0.749" or "(0.1, -0.2, 0.3)", eliding
// the middle of long ones.
func Vector(v []float64) string {
	if len(v) == 1 {
		return Float(v[0], 4)
	}
	parts := make([]string, 0, min(len(v), 4))
	for i, x := range v {
		if len(v) > 4 && i == 3 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, Float(x, 3))
	}
	if len(v) > 4 {
		parts = append(parts, Float(v[len(v)-1], 3))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Count returns n and the noun, in the plural unless n is 1: "1 input",
// "3 inputs". The noun takes an s (its plural is regular).
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
