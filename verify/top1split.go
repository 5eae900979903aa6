package verify

import (
	"math"

	"github.com/nnbound/nnbound/spec"
)

// Splitting on g's input quantiser.
//
// When g quantises its input itself (nn.Network.Input, an int8 model's
// QuantizeLinear) and is fed x (no spec.QuantisedInput pairing), g sees
// only the grid points q(x), and on a box of x each value q(x_i) ranges
// over a few levels. A node then carries, beside its box [lo, hi] of x,
// the box [glo, ghi] of q(x) it owns: the node stands for the inputs x of
// [lo, hi] with q(x) in [glo, ghi], and g is bounded on [glo, ghi] (q is
// the identity on its grid). Halving x_i at the threshold between the
// levels k and k+1 of q gives two children
//
//	x_i <= t + d, q(x_i) <= k      and      x_i >= t - d, q(x_i) >= k+1
//
// (t the threshold, d a margin above the float64 rounding of x_i / s)
// which together own every input of the parent: an x_i within d of t
// rounds to k or k+1 and lies in both boxes. So each split of x_i takes
// levels off g's box, where halving x_i at its midpoint may leave the
// middle level in both children. f, which has no quantiser to exploit,
// is bounded on [lo, hi] as before; a counterexample is an input of the
// root box, re-evaluated by CheckTop1, whichever node found it.

// gridSplit reports whether the nodes carry g's quantised input box.
func (t *top1) gridSplit() bool {
	return t.g.Input != nil && t.in.Pairing != spec.QuantisedInput
}

// gBox returns the box g is bounded on at n: the quantised box n owns, or
// n's box (g quantises it itself) when it carries none.
func (t *top1) gBox(n *top1Node) spec.Box {
	if n.glo != nil {
		return spec.Box{Lo: n.glo, Hi: n.ghi}
	}
	if t.in.Pairing == spec.QuantisedInput {
		return spec.Box{Lo: t.in.X2(n.lo), Hi: t.in.X2(n.hi)} // the quantiser is monotone
	}
	return spec.Box{Lo: n.lo, Hi: n.hi}
}

// gridOf returns the quantised box of n (the image of [lo, hi] under g's
// input quantiser, which is monotone) if n carries none.
func (t *top1) gridOf(n *top1Node) (glo, ghi []float64) {
	if n.glo != nil {
		return n.glo, n.ghi
	}
	q := t.g.Input
	glo, ghi = make([]float64, len(n.lo)), make([]float64, len(n.lo))
	for i := range n.lo {
		glo[i], ghi[i] = q.Apply(i, n.lo[i]), q.Apply(i, n.hi[i])
	}
	return glo, ghi
}

// children returns the two halves of n along coordinate i: at the
// threshold of g's input quantiser between the middle levels of n's
// quantised box when the nodes carry one and x_i spans two levels or
// more (see above), else at the midpoint of [lo_i, hi_i] (the quantised
// box, if any, narrowed to the image of each half). Their volumes are
// shares of n's by the widths of x_i.
func (t *top1) children(n *top1Node, i int) [2]*top1Node {
	var out [2]*top1Node
	for c := range out {
		out[c] = &top1Node{lo: append([]float64(nil), n.lo...), hi: append([]float64(nil), n.hi...)}
	}
	a, b := out[0], out[1]
	mid := n.lo[i]/2 + n.hi[i]/2
	a.hi[i], b.lo[i] = mid, mid
	if t.gridSplit() {
		glo, ghi := t.gridOf(n)
		q := t.g.Input
		s, z := q.At(i)
		kLo, kHi := math.RoundToEven(glo[i]/s)+float64(z), math.RoundToEven(ghi[i]/s)+float64(z)
		for _, c := range out {
			c.glo, c.ghi = append([]float64(nil), glo...), append([]float64(nil), ghi...)
		}
		if kHi > kLo {
			k := math.Floor((kLo + kHi) / 2)
			th := (k - float64(z) + 0.5) * s // exact: s is a float32 value, k + 0.5 a short binary fraction
			d := s * 0x1p-30
			a.hi[i], b.lo[i] = min(th+d, n.hi[i]), max(th-d, n.lo[i])
			a.ghi[i], b.glo[i] = (k-float64(z))*s, (k+1-float64(z))*s
		} else {
			a.ghi[i] = min(a.ghi[i], q.Apply(i, a.hi[i]))
			b.glo[i] = max(b.glo[i], q.Apply(i, b.lo[i]))
		}
	}
	w := n.hi[i] - n.lo[i]
	for _, c := range out {
		c.vol = n.vol * (c.hi[i] - c.lo[i]) / w
	}
	return out
}

// splitTop1 returns the coordinate of n to split: the one of largest
//
//	w_i |df_i| + wg_i |dg_i|
//
// df and dg the gradients of f's and g's margins at n's centre, w_i the
// width of x_i (0 when fDone: f's margins are proved on n) and wg_i that
// of g's input box; where that vanishes, of largest w_i weight_i; -1 if
// none can be split (a coordinate of zero width in float64, or one whose
// midpoint rounds to an end and that spans one level of g's grid).
func (t *top1) splitTop1(n *top1Node, df, dg []float64, fDone bool) int {
	gb := t.gBox(n)
	best, arg, bestW, argW := 0.0, -1, -1.0, -1
	for i := range n.lo {
		w, wg := n.hi[i]-n.lo[i], gb.Hi[i]-gb.Lo[i]
		mid := n.lo[i]/2 + n.hi[i]/2
		if !(n.lo[i] < mid && mid < n.hi[i]) && !(t.gridSplit() && wg > 0) {
			continue
		}
		wf := w
		if fDone {
			wf = 0
		}
		if s := wf*math.Abs(df[i]) + wg*math.Abs(dg[i]); s > best {
			best, arg = s, i
		}
		if s := w * t.colWeight[i]; s > bestW {
			bestW, argW = s, i
		}
	}
	if arg < 0 {
		return argW
	}
	return arg
}
