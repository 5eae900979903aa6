package certify

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/spec"
)

// worstValue returns an upper bound (rounded up) of
//
//	max over the region of  gamma + gamma_x1 ||x1||^2 + gamma_x2 ||x2||^2 + gamma_x ||x1 - x2||^2
//
// for non-negative gammas. The maximum splits into a sum over coordinates
// of convex functions of (x1_i, x2_i), each maximised over the coordinate's
// pairs: the corners of two intervals (Independent), the ends of one
// (SameInput, or a fixed x2), or the ends of every quantisation cell.
func worstValue(g Gammas, r *region, o *task) float64 {
	total := g.Gamma
	ins := r.inputs()
	for i := range r.Box1.Lo {
		a1, b1 := r.Box1.Lo[i], r.Box1.Hi[i]
		var w float64
		switch {
		case r.Pairing == spec.SameInput:
			w = coordValue(g, a1, a1)
			w = max(w, coordValue(g, b1, b1))
		case ins[i].Mode == qc.InputFixed:
			v := ins[i].Value
			w = max(coordValue(g, a1, v), coordValue(g, b1, v))
		case r.Pairing == spec.QuantisedInput && r.Cells[i] != nil:
			for _, c := range r.Cells[i] {
				w = max(w, coordValue(g, c.A, c.V), coordValue(g, c.B, c.V))
			}
		case r.Pairing == spec.QuantisedInput:
			// Too many cells: bound each square separately.
			e := qc.QuantError(o.in.Quant)
			d := max(math.Abs(e.Lo), math.Abs(e.Hi))
			m1 := max(math.Abs(a1), math.Abs(b1))
			m2 := max(math.Abs(r.Box2.Lo[i]), math.Abs(r.Box2.Hi[i]))
			w = outward.AddUpStep(outward.AddUpStep(outward.MulUpStep(g.GammaX1, outward.MulUpStep(m1, m1)), outward.MulUpStep(g.GammaX2, outward.MulUpStep(m2, m2))), outward.MulUpStep(g.GammaX, outward.MulUpStep(d, d)))
		default:
			a2, b2 := r.Box2.Lo[i], r.Box2.Hi[i]
			for _, x1 := range [2]float64{a1, b1} {
				for _, x2 := range [2]float64{a2, b2} {
					w = max(w, coordValue(g, x1, x2))
				}
			}
		}
		total = outward.AddUpStep(total, w)
	}
	return total
}

// coordValue returns an upper bound of gamma_x1 x1^2 + gamma_x2 x2^2 +
// gamma_x (x1 - x2)^2.
func coordValue(g Gammas, x1, x2 float64) float64 {
	d := outward.Up(math.Abs(x1 - x2))
	v := outward.MulUpStep(g.GammaX1, outward.MulUpStep(math.Abs(x1), math.Abs(x1)))
	v = outward.AddUpStep(v, outward.MulUpStep(g.GammaX2, outward.MulUpStep(math.Abs(x2), math.Abs(x2))))
	return outward.AddUpStep(v, outward.MulUpStep(g.GammaX, outward.MulUpStep(d, d)))
}

// weights returns the objective weights of mode o.Weights for region r.
func weights(r *region, o *task) Gammas {
	switch o.Weights {
	case WeightsUnit:
		return Gammas{1, 1, 1, 1}
	case WeightsPaper:
		return PaperWeights
	case WeightsCustom:
		return o.Custom
	}
	// The worst-case value of each gamma's quantity on its own.
	var w [4]float64
	for k := range w {
		var e [4]float64
		e[k] = 1
		w[k] = worstValue(gammasOf(e), r, o)
	}
	return gammasOf(w)
}
