package bounds

import (
	"math"

	"github.com/nnbound/nnbound/nn"
)

// Lowered is a quantised network as bound propagation sees it (see the
// comment at the top of quantised.go): a plain network Net whose layer k
// adds to the pre-activation of neuron i a noise e with
//
//	|e| <= Noise[k][i]   (Noise[k] nil: no noise in layer k),
//
// and whose activation is Base[k] followed by the clamp of the layer's
// quantiser (a hard-tanh; Base[k] is Net.Layers[k].Act for a layer
// without a quantiser). With e the rounding the quantiser actually does
// (e = s j - v for the code j it picks), Net computes the quantised
// network exactly, and the bounds of Pair hold at that e: the
// pre-activation bounds of a layer with noise enclose v + e (Pair
// narrows them to the quantiser's grid, see tightenGrid).
//
// Quant[k] is the quantiser whose rounding the noise of layer k is (nil
// for a layer without noise).
type Lowered struct {
	Net   *nn.Network
	Noise [][]float64
	Base  []nn.Activation
	Quant []*nn.Quantiser
}

// LowerPair returns the lowerings of f1 and f2 that Pair propagates with
// opts.RequantSlack = slack: the layers of PairBounds.Net1, Net2, DiffPre
// and DiffPost are theirs. A plain network is its own lowering when the
// other is plain too; otherwise it may gain identity layers that keep the
// two aligned.
func LowerPair(f1, f2 *nn.Network, slack float64) (Lowered, Lowered, error) {
	m1, m2, err := lowerPair(f1, f2, slack)
	if err != nil {
		return Lowered{}, Lowered{}, err
	}
	return m1.export(), m2.export(), nil
}

// Rounding returns the noise e = s j - v of neuron i of layer k at its
// pre-activation v (without the noise): the rounding its quantiser does
// before the clamp, j = round_half_even(v / s), in float64. Zero for a
// layer without noise. (For tests and diagnostics: the bounds hold for
// every |e| <= Noise[k][i].)
func (l Lowered) Rounding(k, i int, v float64) float64 {
	q := l.Quant[k]
	if q == nil || l.Noise[k] == nil {
		return 0
	}
	s, _ := q.At(i)
	return s*math.RoundToEven(v/s) - v
}

// export returns m as a Lowered.
func (m lowered) export() Lowered {
	n := len(m.f.Layers)
	out := Lowered{Net: m.f, Noise: make([][]float64, n), Base: make([]nn.Activation, n), Quant: make([]*nn.Quantiser, n)}
	for k, l := range m.f.Layers {
		out.Noise[k] = m.layerNoise(k)
		out.Base[k] = l.Act
		if k < len(m.stairs) && m.stairs[k] != nil {
			out.Base[k], out.Quant[k] = m.stairs[k].act, m.stairs[k].q
		}
	}
	return out
}
