package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// The exact image of a quantiser on an interval.
//
// q(v) = s n(v) with the code n(v) = clamp(round_half_even(v / s) + z,
// Lo, Hi) - z is non-decreasing in v, so on [l, u] its codes are those
// between n(l) and n(u):
//
//	nLo = clamp(ceil(l / s - 1/2)),   nHi = clamp(floor(u / s + 1/2))
//
// (a tie may round either way: each end takes the outer code), and q(v)
// lies in [s nLo, s nHi], a constant when nLo = nHi (the interval is
// inside one step, or wholly past an end of the range). The ends l / s
// and u / s are taken outward by 2^-18 (|t| + 1) at t (in steps) for the
// roundings of the division (and the scale's), so that both the exact
// real q and its float64 evaluation (nn.Quantiser.Apply) are enclosed:
// both are non-decreasing and within that margin of the exact jumps.

// stepMargin is the relative margin, in steps, of the ends.
const stepMargin = 0x1p-18

// quantRange returns the enclosure [s nLo, s nHi] of q (value i) over v
// in x (see above), rounded outward, and whether it is one value (q
// constant on x); ok is false for an empty or NaN x.
func quantRange(q *nn.Quantiser, i int, x Interval) (img Interval, constant, ok bool) {
	s, z := q.At(i)
	lo, hi := outward.Down(x.Lo/s), outward.Up(x.Hi/s)
	if !(lo <= hi) {
		return Interval{}, false, false
	}
	lo -= stepMargin * (math.Abs(lo) + 1) // -Inf stays -Inf
	hi += stepMargin * (math.Abs(hi) + 1)
	a, b := float64(q.Lo-z), float64(q.Hi-z)
	nLo := min(max(math.Ceil(lo-0.5), a), b)
	nHi := min(max(math.Floor(hi+0.5), a), b)
	return Interval{outward.MulDown(nLo, s), outward.MulUp(nHi, s)}, nLo == nHi, true
}
