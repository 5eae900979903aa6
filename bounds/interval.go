package bounds

import (
	"fmt"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/spec"
	"math"
)

// Interval is the closed interval [Lo, Hi] of the reals.
type Interval struct {
	Lo, Hi float64
}

// Point returns the degenerate interval [v, v].
func Point(v float64) Interval { return Interval{v, v} }

// Width returns Hi - Lo (rounded up).
func (a Interval) Width() float64 { return outward.SubUp(a.Hi, a.Lo) }

// Mag returns max(|Lo|, |Hi|), the largest magnitude in a.
func (a Interval) Mag() float64 { return max(math.Abs(a.Lo), math.Abs(a.Hi)) }

// Contains reports whether v lies in a.
func (a Interval) Contains(v float64) bool { return a.Lo <= v && v <= a.Hi }

// Straddles reports whether a contains values of both signs: Lo < 0 < Hi.
func (a Interval) Straddles() bool { return a.Lo < 0 && a.Hi > 0 }

// Intersect returns the intersection of a and b. When they are disjoint
// (which sound enclosures of the same quantity never are) it returns the
// hull instead, so a result is always an enclosure of both's common values.
func (a Interval) Intersect(b Interval) Interval {
	c := Interval{max(a.Lo, b.Lo), min(a.Hi, b.Hi)}
	if c.Lo > c.Hi {
		return a.Hull(b)
	}
	return c
}

// Hull returns the smallest interval containing a and b.
func (a Interval) Hull(b Interval) Interval {
	return Interval{min(a.Lo, b.Lo), max(a.Hi, b.Hi)}
}

// Sub returns an enclosure of {x - y : x in a, y in b}.
func (a Interval) Sub(b Interval) Interval {
	return Interval{outward.SubDown(a.Lo, b.Hi), outward.SubUp(a.Hi, b.Lo)}
}

// Add returns an enclosure of {x + y : x in a, y in b}.
func (a Interval) Add(b Interval) Interval {
	return Interval{outward.AddDown(a.Lo, b.Lo), outward.AddUp(a.Hi, b.Hi)}
}

// Scale returns an enclosure of {s x : s in a, x in b}.
func (a Interval) Scale(b Interval) Interval {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range [2]float64{a.Lo, a.Hi} {
		for _, x := range [2]float64{b.Lo, b.Hi} {
			lo = min(lo, outward.MulDown(s, x))
			hi = max(hi, outward.MulUp(s, x))
		}
	}
	return Interval{lo, hi}
}

// String formats a as [lo, hi].
func (a Interval) String() string { return fmt.Sprintf("[%g, %g]", a.Lo, a.Hi) }

// boxIntervals returns the coordinates of b as intervals.
func boxIntervals(b spec.Box) []Interval {
	out := make([]Interval, b.Dim())
	for i := range out {
		out[i] = Interval{b.Lo[i], b.Hi[i]}
	}
	return out
}

// ordered returns a, b swapped when a > b (as is otherwise), by a mask
// rather than a branch: in the sums of an interval product the signs of
// the weights are random, so a branch would be mispredicted half the time.
// The results are a and b to the bit (NaN compares false: no swap).
func ordered(a, b float64) (lo, hi float64) {
	var sw uint64 // so written, the comparison compiles to a SETcc
	if a > b {
		sw = 1
	}
	ab, bb := math.Float64bits(a), math.Float64bits(b)
	x := (ab ^ bb) & -sw
	return math.Float64frombits(ab ^ x), math.Float64frombits(bb ^ x)
}
