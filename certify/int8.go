package certify

import (
	"fmt"
	"strings"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/qc"
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
// qc.Noise, (s/2 - e)(e + s/2) >= 0. Each layer keeps its activation
// (identity or ReLU), so that the constraints relating a neuron to the
// same neuron of the float network (DiffSlope, the chords) apply, and a
// neuron whose bounds reach beyond its quantiser's range on the region
// gets the excess as a coordinate (qc.Sat, qc.Saturation): out = act(xi)
// - relu(xi - Hi) + relu(Lo - xi); a layer where most neurons may
// saturate keeps the clamp as a hard-tanh (qc.LowerInt8), and of those
// constraints only the boxes of the differences (qc.DiffBox).

// int8SDP reports whether the SDP is built for the quantised networks
// f1, f2 on the question of o: the 2-norm of two or more outputs on the
// same input with the default QC set and its roundings (qc.KindNoise),
// where the outputs' joint worst case is what the per-output enclosures
// of bound propagation miss.
func int8SDP(f1 *nn.Network, o *task) bool {
	return o.QC == QCDefault && o.kinds().Has(qc.KindNoise) && o.in.Pairing == spec.SameInput && o.q.C == nil &&
		o.q.Norm == spec.Norm2 && f1.OutputSize() > 1
}

// lowerForSDP returns what the SDP models of quantised f1, f2 on the
// region whose bounds are rb (computed by bounds.Pair on the same
// lowering).
func lowerForSDP(f1, f2 *nn.Network, rb *regionBounds, o *task) (qc.Int8, error) {
	l1, l2, err := bounds.LowerPair(f1, f2, o.RequantSlack)
	if err != nil {
		return qc.Int8{}, fmt.Errorf("certify: %w", err)
	}
	if rb.Nets[0] == nil || rb.Nets[1] == nil {
		// Bounds by the cases of the input quantiser (inputcases.go)
		// have no layers.
		return qc.Int8{}, fmt.Errorf("certify: the int8 SDP needs bounds of the lowered layers: %w", nn.ErrQuantised)
	}
	v, err := qc.LowerInt8([2]bounds.Lowered{l1, l2}, [2][][]bounds.Interval{rb.Nets[0].Pre, rb.Nets[1].Pre})
	if err != nil {
		return qc.Int8{}, fmt.Errorf("certify: %w", err)
	}
	return v, nil
}

// int8Note describes the quadratic constraints of the quantisers v and
// the number of products of facts the cut rounds added (cutRounds).
func int8Note(v qc.Int8, cuts int) string {
	count := 0
	for _, net := range v.Noise {
		for _, rs := range net {
			for _, r := range rs {
				if r > 0 {
					count++
				}
			}
		}
	}
	var sat []string
	if v.Saturating > 0 {
		sat = append(sat, fmt.Sprintf("%d saturating neurons out = act(xi) - relu(xi - hi) + relu(lo - xi)", v.Saturating))
	}
	if len(v.Clamped) > 0 {
		sat = append(sat, "clamps kept as hard-tanh in "+strings.Join(v.Clamped, ", "))
	}
	if sat == nil {
		sat = []string{"no quantiser can saturate"}
	}
	note := fmt.Sprintf("int8 QCs: %d roundings |e| <= s/2 (input, re-quantisation, output), weights folded; %s", count,
		strings.Join(sat, "; "))
	if cuts > 0 {
		note += fmt.Sprintf("; %d products of linear facts of different neurons (cuts the first solves violated)", cuts)
	}
	return note
}
