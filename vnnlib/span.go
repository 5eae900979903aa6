package vnnlib

import (
	"math"

	"github.com/nnbound/nnbound/spec"
)

// span is the range of one value (an input, an output difference, a link
// between inputs) read from comparisons "value rel c": lo <= value <= hi,
// strict on a side whose flag is set, a side unbounded until has is set,
// with the lines that set each side. Both readers keep every range in
// one.
type span struct {
	lo, hi             float64
	hasLo, hasHi       bool
	strictLo, strictHi bool
	loLine, hiLine     int
}

// spanOf returns the span lo..hi, a side at an infinity unbounded.
func spanOf(lo, hi float64, strictLo, strictHi bool) span {
	return span{lo: lo, hi: hi, hasLo: !math.IsInf(lo, -1), hasHi: !math.IsInf(hi, 1), strictLo: strictLo, strictHi: strictHi}
}

// ends returns lo and hi, -Inf and +Inf for sides not bounded.
func (s *span) ends() (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if s.hasLo {
		lo = s.lo
	}
	if s.hasHi {
		hi = s.hi
	}
	return lo, hi
}

// tighten records "value rel c" from line, keeping on each side the
// tighter of what it had and c (at the same value, the strict
// comparison), and reports whether the range is still non-empty.
func (s *span) tighten(line int, rel string, c float64) bool {
	strict := rel == "<" || rel == ">"
	if rel == ">=" || rel == ">" || rel == "=" {
		if !s.hasLo || c > s.lo || (c == s.lo && strict) {
			s.lo, s.hasLo, s.strictLo, s.loLine = c, true, strict, line
		}
	}
	if rel == "<=" || rel == "<" || rel == "=" {
		if !s.hasHi || c < s.hi || (c == s.hi && strict) {
			s.hi, s.hasHi, s.strictHi, s.hiLine = c, true, strict, line
		}
	}
	return !s.hasLo || !s.hasHi || s.lo < s.hi || (s.lo == s.hi && !s.strictLo && !s.strictHi)
}

// outputBound returns the span as the range of output k's difference,
// its Line the line that set Hi, or Lo when Hi is not set.
func (s *span) outputBound(k int) spec.OutputBound {
	b := spec.OutputBound{K: k, StrictLo: s.strictLo, StrictHi: s.strictHi, Line: s.loLine}
	b.Lo, b.Hi = s.ends()
	if s.hasHi {
		b.Line = s.hiLine
	}
	return b
}

// mirror returns rel with its sides swapped, keeping strictness: c < X is
// X > c.
func mirror(rel string) string {
	switch rel {
	case "<=":
		return ">="
	case ">=":
		return "<="
	case "<":
		return ">"
	case ">":
		return "<"
	}
	return rel
}

// closed returns rel with a strict comparison read as closed: an input
// set is a closed box, so X < c bounds it as X <= c does.
func closed(rel string) string {
	switch rel {
	case "<":
		return "<="
	case ">":
		return ">="
	}
	return rel
}
