package experiment

import (
	"math"

	"github.com/nnbound/nnbound/nn"
)

// LayerWidth is one layer of an allocation. In fixed point its weight
// bits are
//
//	Bits = (Weights + Biases) * (1 + IntBits + FracBits)
//
// a sign bit, IntBits integer bits and FracBits fractional bits for every
// weight and bias, IntBits the fewest with every quantised value v of the
// layer inside the format, |v| <= 2^IntBits - 2^-FracBits
// (quantise.Format.Limit). In an int8 copy, WeightBits is the width of
// its integer weights and IntBits and FracBits are 0 (Int8LayerWidths).
type LayerWidth struct {
	Layer      int `json:"layer"`
	Weights    int `json:"weights"`
	Biases     int `json:"biases"`
	IntBits    int `json:"int_bits"`
	FracBits   int `json:"frac_bits"`
	WeightBits int `json:"weight_bits,omitempty"`
	Bits       int `json:"bits"`
}

// TotalBits returns the sum of the layers' Bits.
func TotalBits(layers []LayerWidth) int {
	t := 0
	for _, l := range layers {
		t += l.Bits
	}
	return t
}

// LayerWidths returns the layers of the fixed-point network q whose layer
// k has fbs[k] fractional bits, with their weight bits (LayerWidth).
func LayerWidths(q *nn.Network, fbs []int) []LayerWidth {
	out := make([]LayerWidth, len(q.Layers))
	for k, l := range q.Layers {
		var w []float64 // the weights: W's entries, or a convolution's kernel
		if l.Conv != nil {
			w = l.Conv.Kernel
		} else {
			w = l.W.RawMatrix().Data
		}
		peak := 0.0
		for _, v := range w {
			peak = max(peak, math.Abs(v))
		}
		for _, v := range l.B {
			peak = max(peak, math.Abs(v))
		}
		ib := 0
		for math.Ldexp(1, ib)-math.Ldexp(1, -fbs[k]) < peak {
			ib++
		}
		n := len(w) + len(l.B)
		out[k] = LayerWidth{Layer: k, Weights: len(w), Biases: len(l.B), IntBits: ib, FracBits: fbs[k], Bits: n * (1 + ib + fbs[k])}
	}
	return out
}
