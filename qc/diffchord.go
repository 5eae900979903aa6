package qc

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
)

// DiffChords returns, for corresponding neurons of the two networks (same
// layer, index and activation) with the pre-activation difference
// dxi = xi2 - xi1 in [dl, du] (diffPre, bounds.PairBounds.DiffPre), the
// chords of the slope restriction: the output difference
// dphi = phi2 - phi1 = s dxi for a slope s in [a, b] (the activation's
// SlopeLo, SlopeHi) lies between the chords of min(a dxi, b dxi) and
// max(a dxi, b dxi) over [dl, du],
//
//	(du - dl) dphi <= yl (du - dxi) + yu (dxi - dl),   y = max(a d, b d) at d = dl, du,
//	(du - dl) dphi >= zl (du - dxi) + zu (dxi - dl),   z = min(a d, b d) at d = dl, du,
//
// (both linear), and with products their product, which is >= 0. These are
// the difference analogue of the ReLU triangle (ReLUTriangle); the slope
// restriction DiffSlope is their quadratic counterpart. Neurons whose
// difference is identically zero, or whose dl = du, get none.
//
// Rounding: y and z are rounded outwards, and the rounding of du - dl
// times the largest |dphi| is added to both sides' slack.
func DiffChords(l *Layout, diffPre [][]bounds.Interval, products bool) []Term {
	var ts []Term
	l.corresponding(func(k, i int, p, q *Layer) {
		if k >= len(diffPre) || diffPre[k] == nil {
			return
		}
		dxi, dphi := Sub(q.Pre[i], p.Pre[i]), Sub(q.Post[i], p.Post[i])
		dd := diffPre[k][i]
		if dphi.IsZero() || !(dd.Lo < dd.Hi) || math.IsInf(dd.Lo, 0) || math.IsInf(dd.Hi, 0) {
			return
		}
		pr := PropertiesOf(p.Act)
		a, b := pr.SlopeLo, pr.SlopeHi
		up, down := outward.Up, outward.Down
		yl, yu := up(max(a*dd.Lo, b*dd.Lo)), up(max(a*dd.Hi, b*dd.Hi))
		zl, zu := down(min(a*dd.Lo, b*dd.Lo)), down(min(a*dd.Hi, b*dd.Hi))
		w := dd.Hi - dd.Lo
		// |fl(du - dl) - (du - dl)| <= outward.Ulp(w)/2 < outward.Ulp(w); |dphi| <= max(|a|,
		// |b|) max(|dl|, |du|).
		slack := up(outward.Ulp(w) * up(max(math.Abs(a), math.Abs(b))*up(max(math.Abs(dd.Lo), math.Abs(dd.Hi)))))
		lo, hi := Sub(l.OneForm(dd.Hi), dxi), Sub(dxi, l.OneForm(dd.Lo)) // du - dxi, dxi - dl
		upper := Comb(1, Comb(yl, lo, yu, hi), -w, dphi)
		upper = Comb(1, upper, slack, l.OneForm(1))
		lower := Comb(w, dphi, -1, Comb(zl, lo, zu, hi))
		lower = Comb(1, lower, slack, l.OneForm(1))
		where := fmt.Sprintf("L%d[%d]", k, i)
		ts = append(ts, l.Linear(KindDiffChord, upper, where), l.Linear(KindDiffChord, lower, where))
		if products {
			ts = append(ts, Term{Kind: KindDiffChordProduct, Sign: NonNeg, A: upper, B: lower, Where: where})
		}
	})
	return ts
}
