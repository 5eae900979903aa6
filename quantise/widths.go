package quantise

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseWidths parses a list of fractional-bit widths: a range "A:B", a
// single width "A", or a list "2,4,8", each width in 1 to MaxFracBits.
// The result is in the order given, without repeats. It is the syntax of
// nnbound sweep's --frac-bits and --bits.
func ParseWidths(s string) ([]int, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("quantise: widths: %s", fmt.Sprintf(format, a...))
	}
	var out []int
	add := func(fb int) error {
		if fb < 1 || fb > MaxFracBits {
			return bad("%d fractional bits: want 1 to %d", fb, MaxFracBits)
		}
		for _, v := range out {
			if v == fb {
				return nil
			}
		}
		out = append(out, fb)
		return nil
	}
	atoi := func(p string) (int, error) {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return 0, bad("%q is not a whole number", strings.TrimSpace(p))
		}
		return v, nil
	}
	if a, b, ok := strings.Cut(s, ":"); ok {
		lo, err := atoi(a)
		if err != nil {
			return nil, err
		}
		hi, err := atoi(b)
		if err != nil {
			return nil, err
		}
		if lo > hi {
			return nil, bad("the range is inverted (%d > %d)", lo, hi)
		}
		for fb := lo; fb <= hi; fb++ {
			if err := add(fb); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for _, p := range strings.Split(s, ",") {
		fb, err := atoi(p)
		if err != nil {
			return nil, err
		}
		if err := add(fb); err != nil {
			return nil, err
		}
	}
	return out, nil
}
