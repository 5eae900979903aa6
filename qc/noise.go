package qc

import (
	"fmt"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Noise returns the constraints of the rounding of an int8 quantiser for
// every neuron of network n with a noise coordinate e (Config.Noise):
//
//	(r - e)(e + r) >= 0,   r - e >= 0,   e + r >= 0,
//
// with r its radius. An affine quantiser q(v) = s (clamp(round(v/s) + z,
// Lo, Hi) - z) rounds v to s j with |s j - v| <= s/2 (Appendix 5's
// |x2 - x1| <= Delta for rounding to nearest, Delta = s/2), then clamps:
// the neuron's pre-activation Pre = v + e is s j, and its activation
// (a clamp, or the identity or ReLU where bounds show the clamp cannot
// act: see bounds.Lowered) does the rest. The weights of an int8 layer
// need no constraint: their dequantised values are the second network's
// weights.
func Noise(l *Layout, n int) []Term {
	var ts []Term
	for k := range l.Nets[n].Layers {
		lay := &l.Nets[n].Layers[k]
		for i, c := range lay.NoiseCoord {
			if c < 0 {
				continue
			}
			e, r := Unit(c), lay.NoiseRad[i]
			where := fmt.Sprintf("e%d.L%d[%d]", n+1, k, i)
			ts = append(ts, boxTerm(l, KindNoise, e, -r, r, where),
				l.Linear(KindNoiseLinear, Sub(l.OneForm(r), e), where),
				l.Linear(KindNoiseLinear, Add(e, l.OneForm(r)), where))
		}
	}
	return ts
}

// Saturation returns the constraints of the clamps of network n (Config.Sat):
// for each excess t = relu(w) with a coordinate, w = xi - Hi above the
// range or Lo - xi below it,
//
//	t >= 0,   t - w >= 0,   t (t - w) = 0,
//
// and, given the pre-activation bounds pre[k][i] = [l, u] of the neuron
// (bounds.Net.Pre) with w straddling 0 on them, the triangle's upper side
// uw (w - lw) - (uw - lw) t >= 0 over w's range [lw, uw] (ReLUTriangle).
func Saturation(l *Layout, n int, pre [][]bounds.Interval) []Term {
	var ts []Term
	for k := range l.Nets[n].Layers {
		lay := &l.Nets[n].Layers[k]
		for i := range lay.Out {
			sat, xi := lay.Sat[i], lay.Pre[i]
			b := pre[k][i]
			if c := lay.SatAbove[i]; c >= 0 {
				w := Sub(xi, l.OneForm(sat.Hi))
				ts = append(ts, excess(l, w, Unit(c), outward.SubDown(b.Lo, sat.Hi), outward.SubUp(b.Hi, sat.Hi),
					fmt.Sprintf("s%d.L%d[%d]+", n+1, k, i))...)
			}
			if c := lay.SatBelow[i]; c >= 0 {
				w := Sub(l.OneForm(sat.Lo), xi)
				ts = append(ts, excess(l, w, Unit(c), outward.SubDown(sat.Lo, b.Hi), outward.SubUp(sat.Lo, b.Lo),
					fmt.Sprintf("s%d.L%d[%d]-", n+1, k, i))...)
			}
			if lay.SatAbove[i] >= 0 || lay.SatBelow[i] >= 0 {
				ts = append(ts, clampSlopes(l, lay.Act, sat, xi, lay.Out[i], b, fmt.Sprintf("s%d.L%d[%d]", n+1, k, i))...)
			}
		}
	}
	return ts
}

// excess returns the constraints of t = relu(w) for w in [lo, hi].
func excess(l *Layout, w, t Form, lo, hi float64, where string) []Term {
	cpos := Sub(t, w)
	ts := []Term{l.Linear(KindSat, t, where), l.Linear(KindSat, cpos, where),
		{Kind: KindSatComplementarity, Sign: Free, A: t, B: cpos, Where: where}}
	if lo < 0 && hi > 0 {
		ts = append(ts, l.Linear(KindSat, triangle(l, w, t, lo, hi), where))
	}
	return ts
}

// clampSlopes returns, for the clamped output out = g(xi) of a neuron
// with xi in [lo, hi] (g = clamp(act(.), Lo, Hi), non-decreasing with
// slopes in [0, 1]), the slope restriction against the ends:
//
//	out - g(lo) >= 0,  g(lo) + (xi - lo) - out >= 0,
//	g(hi) - out >= 0,  out - g(hi) + (hi - xi) >= 0,
//
// and the products of the first two and of the last two.
func clampSlopes(l *Layout, act nn.Activation, sat Sat, xi, out Form, b bounds.Interval, where string) []Term {
	g := func(v float64) float64 { return min(max(act.Apply(v), sat.Lo), sat.Hi) }
	gl, gh := g(b.Lo), g(b.Hi)
	// g is evaluated in float64 at exact ends: the clamp and a ReLU or
	// the identity are exact.
	a1 := Sub(out, l.OneForm(gl))
	a2 := Sub(Add(l.OneForm(outward.SubUp(gl, b.Lo)), xi), out)
	b1 := Sub(l.OneForm(gh), out)
	b2 := Sub(Add(out, l.OneForm(outward.SubUp(b.Hi, gh))), xi)
	return []Term{l.Linear(KindSat, a1, where), l.Linear(KindSat, a2, where),
		l.Linear(KindSat, b1, where), l.Linear(KindSat, b2, where),
		{Kind: KindSat, Sign: NonNeg, A: a1, B: a2, Where: where},
		{Kind: KindSat, Sign: NonNeg, A: b1, B: b2, Where: where}}
}
