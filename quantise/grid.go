package quantise

import (
	"math"

	"github.com/nnbound/nnbound/nn"
)

// GridFracBits returns the fewest fractional bits FB, 1 to MaxFracBits,
// whose grid holds every weight and bias of net, every one a multiple of
//
//	2^-FB
//
// which is the width of a copy that Network quantised to FB fractional
// bits (or fewer, when all its values happen to lie on a coarser grid).
// ok is false when no such FB exists: a float network, or an int8 one
// whose scales are not powers of two.
func GridFracBits(net *nn.Network) (fb int, ok bool) {
	return GridFracBitsGraph(net.Graph())
}

// GridFracBitsGraph is GridFracBits for a graph: the fewest fractional
// bits holding the weights (a matrix, a kernel, a scaling) and biases of
// every affine node of g, the width of a copy that Graph quantised.
func GridFracBitsGraph(g *nn.Graph) (fb int, ok bool) {
	fb = 1
	for _, n := range g.Nodes {
		a, isAffine := n.Op.(*nn.Affine)
		if !isAffine {
			continue
		}
		for _, v := range [][]float64{a.Weights(), a.B} {
			if fb, ok = gridBits(fb, v); !ok {
				return 0, false
			}
		}
	}
	return fb, true
}

// gridBits returns the fewest fractional bits, fb or more, holding every
// value of v; ok is false when MaxFracBits do not.
func gridBits(fb int, v []float64) (int, bool) {
	for _, x := range v {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return 0, false
		}
		for math.Ldexp(x, fb) != math.Trunc(math.Ldexp(x, fb)) {
			if fb++; fb > MaxFracBits {
				return 0, false
			}
		}
	}
	return fb, true
}
