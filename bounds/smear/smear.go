package smear

import (
	"math"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
)

// Interval returns, per input i, width_i times the largest magnitude
// of an enclosure of d y_k / d x_i over the box, summed over the networks
// of pb and the outputs ks (ReluVal's and NeuroDiff's smear): the
// derivative of each activation is enclosed from pb's pre-activation
// bounds (0 or 1 where a ReLU is stable, [0, 1] where it straddles 0) and
// the chain rule applied in interval arithmetic from the output back.
// It is a heuristic for the coordinate to split, not a bound; nil when pb's
// layers do not match the networks' (quantisers).
func Interval(nets [2]*nn.Network, pb *bounds.PairBounds, ks []int, lo, hi []float64) []float64 {
	out := make([]float64, len(lo))
	for i, f := range nets {
		nb := pb.Net1
		if i == 1 {
			nb = pb.Net2
		}
		if nb == nil || len(nb.Pre) != len(f.Layers) {
			return nil
		}
		for _, k := range ks {
			glo, ghi, ok := gradientEnclosure(f, nb.Pre, k, nil)
			if !ok {
				return nil
			}
			for j := range out {
				out[j] += (hi[j] - lo[j]) * max(math.Abs(glo[j]), math.Abs(ghi[j]))
			}
		}
	}
	return out
}

// gradientEnclosure returns an enclosure [glo, ghi] of the gradient of
// output k of f over the inputs whose pre-activations lie in pre (float64
// arithmetic, not outward-rounded: a heuristic), and false when pre does
// not match f's widths or a layer is structured (no dense matrix). If
// visit is not nil it is called for each layer l, last first, with the
// enclosure of the gradient of output k with respect to layer l's
// activations (post-activations), before the layer below is reached.
func gradientEnclosure(f *nn.Network, pre [][]bounds.Interval, k int, visit func(l int, glo, ghi []float64)) (glo, ghi []float64, ok bool) {
	last := len(f.Layers) - 1
	glo = make([]float64, f.Layers[last].Out())
	ghi = make([]float64, len(glo))
	glo[k], ghi[k] = 1, 1
	for l := last; l >= 0; l-- {
		layer := &f.Layers[l]
		if layer.W == nil || len(pre[l]) != layer.Out() || len(glo) != layer.Out() { // structured (Conv)
			return nil, nil, false
		}
		if visit != nil {
			visit(l, glo, ghi)
		}
		for r, z := range pre[l] {
			dlo, dhi := activationSlopes(layer.Act, z)
			glo[r], ghi[r] = mulSpan(glo[r], ghi[r], dlo, dhi)
		}
		w := layer.W.RawMatrix()
		nlo, nhi := make([]float64, w.Cols), make([]float64, w.Cols)
		for r := range w.Rows {
			for j, v := range w.Data[r*w.Stride : r*w.Stride+w.Cols] {
				lo, hi := scaleSpan(v, glo[r], ghi[r])
				nlo[j] += lo
				nhi[j] += hi
			}
		}
		glo, ghi = nlo, nhi
	}
	return glo, ghi, true
}

// mulSpan returns the range of the products of [alo, ahi] and [blo, bhi]
// (in float64, without outward rounding: the smears are heuristics).
func mulSpan(alo, ahi, blo, bhi float64) (lo, hi float64) {
	a, b, c, d := alo*blo, alo*bhi, ahi*blo, ahi*bhi
	return min(a, b, c, d), max(a, b, c, d)
}

// scaleSpan returns the range of v times [lo, hi]: mulSpan(v, v, lo, hi)
// to the bit (the min and max of the same two products, with the same
// rules for NaN and signed zeros), with half its products and comparisons,
// for the Jacobians' inner loops.
func scaleSpan(v, lo, hi float64) (float64, float64) {
	a, b := v*lo, v*hi
	return min(a, b), max(a, b)
}

// activationSlopes returns an enclosure of the slope of activation a on
// the pre-activations in z: exact for identity and ReLU, [0, 1] otherwise
// (a heuristic for the others).
func activationSlopes(a nn.Activation, z bounds.Interval) (lo, hi float64) {
	switch {
	case a.Kind == nn.Identity:
		return 1, 1
	case a.Kind == nn.ReLU && z.Lo >= 0:
		return 1, 1
	case a.Kind == nn.ReLU && z.Hi <= 0:
		return 0, 0
	}
	return 0, 1
}

// ArgmaxHalvable returns the coordinate i of largest score[i] among
// those that can be halved in float64 (positive scores only), or -1.
func ArgmaxHalvable(score, lo, hi []float64) int {
	best, arg := 0.0, -1
	for i := range lo {
		mid := lo[i]/2 + hi[i]/2
		if lo[i] < mid && mid < hi[i] && score[i] > best {
			best, arg = score[i], i
		}
	}
	return arg
}
