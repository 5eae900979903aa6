package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Relaxing the difference of two activations (NeuroDiff's idea).
//
// For a neuron with pre-activations a = xi1 in pre1 and b = xi2 = a + d in
// pre2, d in D, the output difference
//
//	delta = phi2(a + d) - phi1(a)
//
// is bounded by planes in (a, d): A a + B d + C. Two families are sound:
//
//   - difference only (phi1 = phi2 = phi): by the mean value theorem
//     delta = s d for some slope s in S = SlopeRange(phi, pre1 ∪ pre2), so
//     min(S.Lo d, S.Hi d) <= delta <= max(S.Lo d, S.Hi d); the upper
//     function is convex and the lower concave in d, so their chords over D
//     bound them. When D is tiny (a float16 or slightly quantised copy) so
//     is the gap, whatever the pre-activation range.
//   - separate: with the single-network lines L1 <= phi1 <= U1 on pre1 and
//     L2 <= phi2 <= U2 on pre2, L2(a + d) - U1(a) <= delta <= U2(a + d) -
//     L1(a). Exact where both neurons are in linear pieces of phi (stable
//     ReLUs), whichever pieces they are.
//
// plus the constant bounds of the interval difference. The plane with the
// best value at the centre of pre1 x D is kept.

// plane is the function (a, d) -> A a + B d + C.
type plane struct{ A, B, C float64 }

// at returns the plane's value at (a, d).
func (p plane) at(a, d float64) float64 { return p.A*a + p.B*d + p.C }

// diffPlanes returns planes below and above phi2(a + d) - phi1(a) for a in
// pre1, a + d in pre2, d in dd, given the single-network lines of both
// neurons and an enclosure post of the difference: of diffCandidates',
// those best at the centre of pre1 x dd.
func diffPlanes(act1, act2 nn.Activation, pre1, pre2, dd, post Interval, l1, u1, l2, u2 line) (lower, upper plane) {
	lows, ups, n := diffCandidates(act1, act2, pre1, pre2, dd, post, l1, u1, l2, u2)
	ca, cd := pre1.Lo/2+pre1.Hi/2, dd.Lo/2+dd.Hi/2
	return lows[bestPlane(lows[:n], ca, cd, false)], ups[bestPlane(ups[:n], ca, cd, true)]
}

// diffCandidates returns the first n of lows and ups, planes below and
// above phi2(a + d) - phi1(a) as diffPlanes: post's constants, then
// the single-network lines' planes (separatePlanes), then, for two equal
// activations, the chords of their slope range.
func diffCandidates(act1, act2 nn.Activation, pre1, pre2, dd, post Interval, l1, u1, l2, u2 line) (lows, ups [3]plane, n int) {
	lows[0], ups[0] = plane{0, 0, post.Lo}, plane{0, 0, post.Hi}
	lows[1], ups[1] = separatePlanes(pre1.Mag(), l1, u1, l2, u2)
	n = 2
	if a, ok := sameAct(act1, act2, pre1, pre2); ok {
		s := SlopeRange(a, pre1.Hull(pre2))
		lows[2], ups[2] = slopeChordBelow(s, dd), slopeChordAbove(s, dd)
		n = 3
	}
	return lows, ups, n
}

// bestPlane returns the index of the plane of ps highest at (a, d) (the
// lowest when upper), the first of equals.
func bestPlane(ps []plane, a, d float64, upper bool) int {
	best := 0
	for j, p := range ps[1:] {
		v, b := p.at(a, d), ps[best].at(a, d)
		if (!upper && v > b) || (upper && v < b) {
			best = j + 1
		}
	}
	return best
}

// separatePlanes returns the planes L2(a + d) - U1(a) and U2(a + d) -
// L1(a) below and above phi2(a + d) - phi1(a), for |a| <= ma: the
// coefficient on a is a rounded difference, whose error times ma goes into
// the constant.
func separatePlanes(ma float64, l1, u1, l2, u2 line) (lower, upper plane) {
	aU, aL := u2.A-l1.A, l2.A-u1.A
	eU := (2*outward.Unit*math.Abs(aU) + outward.Tiny) * ma
	eL := (2*outward.Unit*math.Abs(aL) + outward.Tiny) * ma
	return plane{aL, l2.A, outward.DownBy(outward.SubDown(l2.C, u1.C), eL)}, plane{aU, u2.A, outward.UpBy(outward.SubUp(u2.C, l1.C), eU)}
}

// sameAct returns an activation a with phi1 = a on pre1 and phi2 = a on
// pre2, if there is one: they are equal; or one is the hard-tanh that
// clamps the other (the clamp of a quantised network's layer,
// quantised.go) only outside both ranges (hard-tanh(lo, hi) is the
// identity on [lo, hi] and ReLU on (-inf, hi] when lo = 0), a is then the
// other; or the other equals the hard-tanh on its own range (a float
// neuron that stays inside the range where its quantised copy
// saturates), a is then the hard-tanh.
func sameAct(act1, act2 nn.Activation, pre1, pre2 Interval) (nn.Activation, bool) {
	if act1 == act2 {
		return act1, true
	}
	if act1.Kind == nn.HardTanh {
		act1, act2, pre1, pre2 = act2, act1, pre2, pre1
	}
	if act2.Kind != nn.HardTanh {
		return nn.Activation{}, false
	}
	if clampsOnly(act1, act2, pre1.Hull(pre2)) {
		return act1, true
	}
	if clampsOnly(act1, act2, pre1) {
		return act2, true
	}
	return nn.Activation{}, false
}

// clampsOnly reports whether the hard-tanh h equals act on x.
func clampsOnly(act, h nn.Activation, x Interval) bool {
	if x.Hi > h.Hi {
		return false
	}
	switch act.Kind {
	case nn.Identity:
		return x.Lo >= h.Lo
	case nn.ReLU:
		return h.Lo == 0
	}
	return false
}

// slopeChordAbove returns a line B d + C >= max(s.Lo d, s.Hi d) for d in dd.
func slopeChordAbove(s, dd Interval) plane {
	switch {
	case dd.Lo >= 0:
		return plane{0, s.Hi, 0}
	case dd.Hi <= 0:
		return plane{0, s.Lo, 0}
	}
	b := (s.Hi*dd.Hi - s.Lo*dd.Lo) / (dd.Hi - dd.Lo)
	// H - b d is convex and piecewise linear with a kink at 0.
	c := max(outward.SubUp(outward.MulUp(s.Lo, dd.Lo), outward.MulDown(b, dd.Lo)), outward.SubUp(outward.MulUp(s.Hi, dd.Hi), outward.MulDown(b, dd.Hi)), 0)
	return plane{0, b, c}
}

// slopeChordBelow returns a line B d + C <= min(s.Lo d, s.Hi d) for d in dd.
func slopeChordBelow(s, dd Interval) plane {
	switch {
	case dd.Lo >= 0:
		return plane{0, s.Lo, 0}
	case dd.Hi <= 0:
		return plane{0, s.Hi, 0}
	}
	b := (s.Lo*dd.Hi - s.Hi*dd.Lo) / (dd.Hi - dd.Lo)
	c := min(outward.SubDown(outward.MulDown(s.Hi, dd.Lo), outward.MulUp(b, dd.Lo)), outward.SubDown(outward.MulDown(s.Lo, dd.Hi), outward.MulUp(b, dd.Hi)), 0)
	return plane{0, b, c}
}

// planeRange returns an enclosure of the plane over a in pre1, d in dd.
func planeRange(p plane, pre1, dd Interval) Interval {
	return Point(p.A).Scale(pre1).Add(Point(p.B).Scale(dd)).Add(Point(p.C))
}
