package bounds

import (
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
	out := Interval{min(-r, outward.SubDown(dn.Hi, x.Hi)), max(r, outward.SubUp(up.Lo, x.Lo))}
	if img, _, ok := quantRange(q, i, x); ok {
		out = out.Intersect(Interval{outward.SubDown(img.Lo, x.Hi), outward.SubUp(img.Hi, x.Lo)})
	}
	return out
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
