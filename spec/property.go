package spec

import "math"

// Property is a property over two networks f and g, as the VNN-LIB 2.0
// equivalence benchmarks state it: an input set and a range for each
// constrained output difference,
//
//	Lo_k <= g_k(x_g) - f_k(x_f) <= Hi_k   for every x_f in Box, x_g paired with it,
//
// where x_g = x_f when Same, and x_g ranges over BoxG independently
// otherwise. The property holds when every input pair keeps every
// constrained difference in its range, and is violated when one input
// pair takes one outside.
type Property struct {
	// Box is the set of f's inputs (flattened row-major).
	Box Box
	// Same reports that g reads f's input (x_g = x_f).
	Same bool
	// BoxG is the set of g's inputs when Same is false; empty when Same.
	BoxG Box
	// Outputs holds one range per constrained output, in increasing K.
	Outputs []OutputBound
	// Source names the file the property was read from ("" when it was
	// not read from one).
	Source string
}

// OutputBound is the range of output k's difference:
//
//	Lo <= g_k - f_k <= Hi,
//
// with Lo = -Inf or Hi = +Inf when that side is not constrained, and a
// strict inequality on a side whose Strict flag is set.
type OutputBound struct {
	K                  int // flat (row-major) index of the output
	Lo, Hi             float64
	StrictLo, StrictHi bool
	// Line is where the range was stated (the assertion that set Hi, or
	// Lo if Hi is unset), 0 when not read from a file.
	Line int
}

// Eps returns eps when the bound is |g_k - f_k| <= eps (Lo = -Hi, both
// sides closed), and ok false otherwise.
func (b OutputBound) Eps() (eps float64, ok bool) {
	if b.Lo == -b.Hi && !b.StrictLo && !b.StrictHi && !math.IsInf(b.Hi, 0) {
		return b.Hi, true
	}
	return 0, false
}

// Holds reports whether the difference d = g_k - f_k satisfies b.
func (b OutputBound) Holds(d float64) bool {
	lo := d > b.Lo || (d == b.Lo && !b.StrictLo)
	hi := d < b.Hi || (d == b.Hi && !b.StrictHi)
	return lo && hi
}

// Inside reports whether every difference in [lo, hi] satisfies b.
func (b OutputBound) Inside(lo, hi float64) bool { return b.Holds(lo) && b.Holds(hi) }

// Outside reports whether every difference in [lo, hi] violates b: the
// whole interval lies past one end of the range.
func (b OutputBound) Outside(lo, hi float64) bool {
	return hi < b.Lo || (hi == b.Lo && b.StrictLo) || lo > b.Hi || (lo == b.Hi && b.StrictHi)
}
