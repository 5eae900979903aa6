package certify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// The SDP of quantised networks (QDQ int8 models).
//
// An affine quantiser q(v) = s (clamp(round(v/s) + z, Lo, Hi) - z) is the
// rounding v -> v + e, |e| <= s/2, followed by a clamp to [s (Lo - z),
// s (Hi - z)]. The SDP models the networks as bound propagation does
// (bounds.Lowered): the input quantiser is a first layer of identity
// weights, each layer's re-quantisation adds e to its pre-activation,
// and the dequantised int8 weights are the weights (nothing to model).
// Each rounding e is a coordinate of eta with the constraint of
// qc.Noise, (s/2 - e)(e + s/2) >= 0. The clamp is where saturation
// enters: a layer none of whose neurons can reach its quantiser's range
// on the region (by its pre-activation bounds, which enclose v + e) keeps
// its own activation (identity or ReLU), and the constraints relating it
// to the same neuron of the float network (DiffSlope, DiffBox, the
// chords) apply; a layer that may saturate keeps the clamp composed
// with its activation (a hard-tanh), modelled exactly but without those
// constraints.

// int8SDP reports whether the SDP is built for the quantised networks
// f1, f2 on the question of o: the 2-norm of two or more outputs on the
// same input with the default QC set, where the outputs' joint worst
// case is what the per-output enclosures of bound propagation miss.
func int8SDP(f1 *nn.Network, o *task) bool {
	return o.QC == QCDefault && o.in.Pairing == spec.SameInput && o.q.C == nil && o.q.Norm == spec.Norm2 &&
		f1.OutputSize() > 1
}

// int8Nets are the networks the SDP models for quantised f1, f2 on one
// region: their lowerings with the clamps that cannot act there removed,
// the radius of each rounding (Noise[n][k][i], 0: none) and the layers
// that keep a clamp (for the certificate's note).
type int8Nets struct {
	f1, f2    *nn.Network
	noise     [2][][]float64
	saturated []string
}

// lowerForSDP returns the int8Nets of f1, f2 on the region whose bounds
// are rb (computed by bounds.Pair on the same lowering).
func lowerForSDP(f1, f2 *nn.Network, rb *regionBounds, o *task) (int8Nets, error) {
	l1, l2, err := bounds.LowerPair(f1, f2, o.RequantSlack)
	if err != nil {
		return int8Nets{}, fmt.Errorf("certify: %w", err)
	}
	out := int8Nets{noise: [2][][]float64{l1.Noise, l2.Noise}}
	for n, low := range [2]bounds.Lowered{l1, l2} {
		if rb.Nets[n] == nil || len(rb.Nets[n].Pre) != len(low.Net.Layers) {
			// Bounds by the cases of the input quantiser (inputcases.go)
			// have no layers.
			return int8Nets{}, fmt.Errorf("certify: network %d: the int8 SDP needs bounds of its %d lowered layers: %w",
				n+1, len(low.Net.Layers), nn.ErrQuantised)
		}
		g := &nn.Network{Layers: slices.Clone(low.Net.Layers)}
		for k := range g.Layers {
			if low.Quant[k] == nil || low.Base[k] == g.Layers[k].Act {
				continue
			}
			if clampIdle(low.Base[k], g.Layers[k].Act, low.Quant[k], rb.Nets[n].Pre[k]) {
				g.Layers[k].Act = low.Base[k]
			} else {
				out.saturated = append(out.saturated, fmt.Sprintf("n%d.L%d", n+1, k))
			}
		}
		if n == 0 {
			out.f1 = g
		} else {
			out.f2 = g
		}
	}
	return out, nil
}

// clampIdle reports whether the activation clamp (base composed with the
// clamp of the quantiser q, a hard-tanh) equals base, the identity or a
// ReLU, on the region where layer k's pre-activations are in pre. A
// pre-activation u = v + e is on the quantiser's grid, u = s j for an
// integer j (bounds.Lowered), and so are the clamp's ends s (Lo - z) and
// s (Hi - z): u within less than s/2 of the range is within it, which
// bounds rounded outward (an end at -1e-323 for 0) cannot show by
// themselves. Below the range a ReLU gives 0 either way.
func clampIdle(base, clamp nn.Activation, q *nn.Quantiser, pre []bounds.Interval) bool {
	if clamp.Kind != nn.HardTanh || (base.Kind != nn.Identity && base.Kind != nn.ReLU) {
		return false
	}
	for i, iv := range pre {
		s, _ := q.At(i)
		lo, hi := q.Range(i)
		// Less than s/2 beyond an end (0.45 s, against the rounding of
		// lo and hi) is the end itself.
		if !(iv.Hi < hi+0.45*s) || (base.Kind == nn.Identity && !(iv.Lo > lo-0.45*s)) {
			return false
		}
	}
	return true
}

// note describes the quadratic constraints of the quantisers.
func (v int8Nets) note() string {
	count := 0
	for _, net := range v.noise {
		for _, rs := range net {
			for _, r := range rs {
				if r > 0 {
					count++
				}
			}
		}
	}
	sat := "no quantiser can saturate"
	if len(v.saturated) > 0 {
		sat = "saturation modelled as a clamp in " + strings.Join(v.saturated, ", ")
	}
	return fmt.Sprintf("int8 QCs: %d roundings |e| <= s/2 (input, re-quantisation, output), weights folded; %s", count, sat)
}
