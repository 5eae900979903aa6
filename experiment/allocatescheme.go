package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// layerScheme makes the copies of an allocation from one width per layer:
// fractional bits in fixed point (fixedScheme) or the weights' bits of an
// affine int8 copy (int8Scheme).
type layerScheme interface {
	// quantise returns core's copy with widths[k] in layer k and the
	// weight bits of its layers.
	quantise(core *nn.Network, widths []int) (*nn.Network, []LayerWidth, error)
	// lower returns the width a layer at w goes down to, false at the
	// bottom.
	lower(w int) (int, bool)
	// starts returns the widths of at most n descents from w up: w, then
	// the widths above it.
	starts(w, n int) []int
}

// fixedScheme quantises weights and biases to fixed point with the
// layer's fractional bits, rounded by rounding.
type fixedScheme struct{ rounding quantise.Rounding }

func (s fixedScheme) quantise(core *nn.Network, fbs []int) (*nn.Network, []LayerWidth, error) {
	o := quantise.Options{Layers: make([]quantise.LayerFormats, len(fbs))}
	for k, fb := range fbs {
		f := quantise.Format{FracBits: fb, Rounding: s.rounding}
		o.Layers[k] = quantise.LayerFormats{Weights: f, Biases: f}
	}
	q, err := quantise.Network(core, o)
	if err != nil {
		return nil, nil, err
	}
	return q, LayerWidths(q, fbs), nil
}

func (fixedScheme) lower(fb int) (int, bool) { return fb - 1, fb > 1 }

func (fixedScheme) starts(fb, n int) []int {
	var out []int
	for w := fb; w < fb+max(n, 1) && w <= quantise.MaxFracBits; w++ {
		out = append(out, w)
	}
	return out
}

// int8Scheme makes affine int8 copies (quantise.Int8 with opts, calibrated
// on ranges) whose layer k has weights of widths[k] bits, one of bits
// (ascending), the activations at opts.Bits.
type int8Scheme struct {
	opts   quantise.Int8Options
	ranges quantise.Ranges
	bits   []int
}

// newInt8Scheme returns the int8 scheme of opts for core, with the weight
// widths bits (2 to 8, ascending), calibrated (Calibrate) on the inputs
// xs or, for none, on box so that no input of the box saturates.
func newInt8Scheme(core *nn.Network, xs [][]float64, box spec.Box, opts quantise.Int8Options, bits []int) (int8Scheme, error) {
	for _, b := range bits {
		if b < 2 || b > 8 {
			return int8Scheme{}, fmt.Errorf("experiment: int8 allocation: weights of %d bits, want 2 to 8", b)
		}
	}
	if err := opts.Validate(); err != nil {
		return int8Scheme{}, err
	}
	r, err := Calibrate(core, xs, box)
	if err != nil {
		return int8Scheme{}, err
	}
	return int8Scheme{opts: opts, ranges: r, bits: bits}, nil
}

func (s int8Scheme) quantise(core *nn.Network, widths []int) (*nn.Network, []LayerWidth, error) {
	o := s.opts
	o.WeightBits = widths
	q, err := quantise.Int8(core, s.ranges, o)
	if err != nil {
		return nil, nil, err
	}
	return q, Int8LayerWidths(q, widths), nil
}

func (s int8Scheme) lower(w int) (int, bool) {
	i := slices.Index(s.bits, w)
	if i <= 0 {
		return 0, false
	}
	return s.bits[i-1], true
}

func (s int8Scheme) starts(w, n int) []int {
	i := slices.Index(s.bits, w)
	if i < 0 {
		return nil
	}
	return slices.Clone(s.bits[i:min(i+max(n, 1), len(s.bits))])
}

// Int8LayerWidths returns the layers of the int8 network q whose layer k
// has weights of bits[k] bits, with their weight bits
//
//	Bits = Weights * WeightBits + Biases * 32
//
// (the biases are int32); the scales and zero points, the same at every
// width, are not counted.
func Int8LayerWidths(q *nn.Network, bits []int) []LayerWidth {
	out := make([]LayerWidth, len(q.Layers))
	for k, l := range q.Layers {
		r, c := l.W.Dims()
		out[k] = LayerWidth{Layer: k, Weights: r * c, Biases: len(l.B), WeightBits: bits[k], Bits: r*c*bits[k] + 32*len(l.B)}
	}
	return out
}

// newCandidate quantises core with widths fbs by scheme, rebuilds the
// network around it and measures its weight bits.
func newCandidate(core *nn.Network, rebuild Rebuild, scheme layerScheme, fbs []int) (*candidate, error) {
	q, layers, err := scheme.quantise(core, fbs)
	if err != nil {
		return nil, err
	}
	net, err := rebuild(q)
	if err != nil {
		return nil, err
	}
	return &candidate{fbs: fbs, layers: layers, net: net}, nil
}

// joinInts returns the integers v joined by ", ".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
