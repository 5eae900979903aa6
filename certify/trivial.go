package certify

import (
	"math"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/spec"
)

// trivialBound returns the bound on the quantity q (norm or C) that the
// ranges of the output activations give alone, +Inf when an output is
// unbounded: output j of network n lies in [lo_n, hi_n], so
//
//	|f2_j - f1_j| <= w_j = max(hi2 - lo1, hi1 - lo2),
//
// combined as sqrt(sum_j w_j^2), max_j w_j or sum_j |c_j| w_j (2 sqrt(2)
// for two tanh outputs), in float64.
func trivialBound(f1, f2 *nn.Network, q spec.Quantity) float64 {
	p1 := qc.PropertiesOf(f1.Layers[len(f1.Layers)-1].Act)
	p2 := qc.PropertiesOf(f2.Layers[len(f2.Layers)-1].Act)
	w := max(p2.Hi-p1.Lo, p1.Hi-p2.Lo)
	if math.IsInf(w, 0) || math.IsNaN(w) {
		return math.Inf(1)
	}
	n := f1.OutputSize()
	switch {
	case q.C != nil:
		s := 0.0
		for _, v := range q.C {
			s += abs(v) * w
		}
		return s
	case q.Norm == spec.NormInf:
		return w
	}
	return math.Sqrt(float64(n)) * w
}

// IsTrivial reports whether the certified bound is no smaller, to
// rounding, than a positive Trivial, what the ranges of the output
// activations give alone: bound propagation and the SDP then proved
// nothing more than that the outputs are bounded (typically at very
// coarse widths).
func (c *Certificate) IsTrivial() bool {
	return c.Certified() && c.Trivial > 0 && c.Bound >= c.Trivial*(1-1e-9)
}
