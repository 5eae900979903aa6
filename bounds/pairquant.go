package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// The difference of two quantisers, either of which may be the identity.
//
// Write q(v) = v + e(v): away from saturation |e| <= r (quantNoise: s/2
// and the float64 rounding), and beyond the range e = b - v above the top
// b or a - v below the bottom a. For y = z + d,
//
//	q2(y) - q1(z) = d + e2(y) - e1(z)
//
// so the difference moves d by at most r1 + r2 where neither saturates,
// whatever z: the pair costs its rounding, not the range of z. Its
// enclosure is that one intersected with q2's image minus q1's, and its
// planes (pairRelax) are the single quantisers' lines, which away from
// saturation are v - r and v + r, so that the planes are d - r1 - r2 and
// d + r1 + r2.

// roundingImage returns an enclosure of e(v) = q(v) - v for value i over
// v in x (0 when q is nil): q(v) lies between clamp(v - r, dn) and
// clamp(v + r, up), so e(v) >= min(-r, dn.Hi - v) and
// e(v) <= max(r, up.Lo - v).
func roundingImage(q *nn.Quantiser, i int, x Interval) Interval {
	if q == nil {
		return Interval{}
	}
	r, dn, up := quantNoise(q, i)
	return Interval{min(-r, outward.SubDown(dn.Hi, x.Hi)), max(r, outward.SubUp(up.Lo, x.Lo))}
}

// quantOrIdentityImage returns an enclosure of q(v) (v when q is nil) for
// value i over v in x.
func quantOrIdentityImage(q *nn.Quantiser, i int, x Interval) Interval {
	if q == nil {
		return x
	}
	return quantImage(q, i, x)
}

// quantOrIdentityLines returns lines below and above q (the identity when
// q is nil) for value i on x.
func quantOrIdentityLines(q *nn.Quantiser, i int, x Interval) (lower, upper line) {
	if q == nil {
		return line{1, 0}, line{1, 0}
	}
	return quantLines(q, i, x)
}

// pairQuantImage returns an enclosure of q2(s + t) - q1(s) for s in z,
// t in d and s + t in y: the intersection of d + e2 - e1 with q2's image
// minus q1's.
func pairQuantImage(p pairQuant, i int, z, d, y Interval) Interval {
	viaD := d.Add(roundingImage(p.q2, i, y)).Sub(roundingImage(p.q1, i, z))
	return viaD.Intersect(quantOrIdentityImage(p.q2, i, y).Sub(quantOrIdentityImage(p.q1, i, z)))
}

// quantConstant returns the value q takes (value i) on all of x, rounded
// outward, when x lies inside one rounding step: v / s, computed exactly
// or in float64, stays within (k - 1/2, k + 1/2) for one integer k, with a
// margin of 2^-18 (|v / s| + 1) for the roundings of the division (and
// the scale's). Saturated steps count: k is clamped to the range after.
func quantConstant(q *nn.Quantiser, i int, x Interval) (Interval, bool) {
	s, z := q.At(i)
	lo, hi := outward.Down(x.Lo/s), outward.Up(x.Hi/s)
	if !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return Interval{}, false
	}
	k := math.Round(lo)
	m := 0x1p-18 * (max(math.Abs(lo), math.Abs(hi)) + 1)
	if !(lo > k-0.5+m && hi < k+0.5-m) {
		zk := float64(z) // wholly past one end of the range: constant too
		switch {
		case lo > float64(q.Hi)-zk+0.5+m:
			k = float64(q.Hi) - zk
		case hi < float64(q.Lo)-zk-0.5-m:
			k = float64(q.Lo) - zk
		default:
			return Interval{}, false
		}
	}
	n := min(max(k+float64(z), float64(q.Lo)), float64(q.Hi)) - float64(z)
	return Interval{outward.MulDown(n, s), outward.MulUp(n, s)}, true
}
