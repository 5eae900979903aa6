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
	fb = 1
	for _, l := range net.Layers {
		w := l.B
		if l.Conv != nil {
			w = append(w[:len(w):len(w)], l.Conv.Kernel...)
		} else {
			w = append(w[:len(w):len(w)], l.W.RawMatrix().Data...)
		}
		for _, v := range w {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return 0, false
			}
			for math.Ldexp(v, fb) != math.Trunc(math.Ldexp(v, fb)) {
				if fb++; fb > MaxFracBits {
					return 0, false
				}
			}
		}
	}
	return fb, true
}
