package qc

import (
	"fmt"
	"slices"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
)

// Int8 is what a layout models of quantised networks (int8 models in QDQ
// form): their lowerings (bounds.Lowered) with every rounding a noise
// coordinate (Config.Noise) and every clamp that can act on the region a
// saturation (Config.Sat).
type Int8 struct {
	Nets  [2]*nn.Network
	Noise [2][][]float64
	Sat   [2][][]Sat
	// Saturating counts the neurons whose clamp gets its excesses as
	// coordinates; Clamped lists the layers ("n2.L1") that keep their
	// clamp as a hard-tanh activation instead: those whose activation is
	// not the identity or a ReLU, and those where more than half the
	// neurons may saturate.
	Saturating int
	Clamped    []string
}

// LowerInt8 returns the Int8 of the lowerings low of two networks on a
// region where their pre-activations lie in pre[n][k][i] (bounds.Net.Pre
// of bounds.Pair on the same lowering, which encloses xi = v + e).
//
// A layer with a quantiser computes clamp(act(xi)) with act the identity
// or a ReLU (Lowered.Base) and xi = v + e on the quantiser's grid, xi =
// s j for an integer j; so are the clamp's ends s (Lo - z), s (Hi - z),
// and xi within less than s/2 of the range is within it (bounds rounded
// outward, with an end at -1e-323 for 0, cannot show that by
// themselves). Each layer keeps act, so that the constraints between
// corresponding neurons of the two networks apply (DiffSlope, the chords;
// DiffBox applies against a hard-tanh too), and each neuron whose
// pre-activation may leave the range gets a Sat: at the top, and at the
// bottom for the identity (a ReLU's clamp starts at 0, where it already
// is). A layer with another activation, or where more than half the
// neurons may saturate, keeps the hard-tanh: the excesses then cost more
// coordinates than the constraints between the networks' neurons gain
// (the whole box of the int8 digits model, per channel: 104.1 against
// 130.0, the difference boxes applying to both).
func LowerInt8(low [2]bounds.Lowered, pre [2][][]bounds.Interval) (Int8, error) {
	var out Int8
	for n, lw := range low {
		if len(pre[n]) != len(lw.Net.Layers) {
			return Int8{}, fmt.Errorf("qc: network %d: %d layers of bounds for %d lowered layers: %w",
				n+1, len(pre[n]), len(lw.Net.Layers), nn.ErrDimension)
		}
		g := &nn.Network{Layers: slices.Clone(lw.Net.Layers)}
		out.Sat[n] = make([][]Sat, len(g.Layers))
		for k := range g.Layers {
			clamp, base, q := g.Layers[k].Act, lw.Base[k], lw.Quant[k]
			if q == nil || clamp == base {
				continue
			}
			if clamp.Kind != nn.HardTanh || (base.Kind != nn.Identity && base.Kind != nn.ReLU) ||
				(base.Kind == nn.ReLU && clamp.Lo != 0) {
				out.Clamped = append(out.Clamped, fmt.Sprintf("n%d.L%d", n+1, k))
				continue
			}
			sats, count := make([]Sat, len(pre[n][k])), 0
			for i, iv := range pre[n][k] {
				s, _ := q.At(i)
				// Less than s/2 beyond an end (0.45 s, against the
				// rounding of the ends) is the end itself.
				st := Sat{Lo: clamp.Lo, Hi: clamp.Hi, Above: !(iv.Hi < clamp.Hi+0.45*s),
					Below: base.Kind == nn.Identity && !(iv.Lo > clamp.Lo-0.45*s)}
				if st.Above || st.Below {
					count++
				}
				sats[i] = st
			}
			if count > len(sats)/2 {
				// Most neurons may saturate: the hard-tanh's own
				// constraints beat the excesses' (whole-box digits).
				out.Clamped = append(out.Clamped, fmt.Sprintf("n%d.L%d", n+1, k))
				continue
			}
			g.Layers[k].Act, out.Sat[n][k] = base, sats
			out.Saturating += count
		}
		out.Nets[n], out.Noise[n] = g, lw.Noise
	}
	return out, nil
}
