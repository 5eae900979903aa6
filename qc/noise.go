package qc

import "fmt"

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
