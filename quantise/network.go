package quantise

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/nn"
)

// Options says how to quantise a network's parameters.
type Options struct {
	// Weights is the format of every weight, Biases of every bias, unless
	// Layers says otherwise.
	Weights, Biases Format
	// Layers, when not nil, gives the formats of each layer and must have
	// one entry per layer of the network.
	Layers []LayerFormats
	// ActFracBits, when positive, also rounds the output of every hidden
	// layer to the nearest multiple of 2^-ActFracBits (ties to even, no
	// saturation): fixed-point arithmetic's activation rounding, as an
	// output quantiser (nn.Quantiser) of each layer but the last. 0 (the
	// paper's mode) leaves activations exact.
	ActFracBits int
}

// actRange is the integer range of the activation rounding: wide enough
// that no float64 activation of a sane network saturates, small enough
// that every code times 2^-FB is exact.
const actRange = 1 << 52

// LayerFormats are the formats of one layer's weights and biases.
type LayerFormats struct {
	Weights, Biases Format
}

// DefaultOptions returns 8 fractional bits, no integer-bit limit and the
// paper's truncation toward zero, for weights and biases alike.
func DefaultOptions() Options {
	f := Format{FracBits: 8, Rounding: Trunc}
	return Options{Weights: f, Biases: f}
}

// Validate reports an invalid format, naming the field (or layer):
// "quantise: Weights: FracBits is 0, want 1 to 52".
func (o Options) Validate() error {
	if o.Layers != nil {
		for k, l := range o.Layers {
			if err := l.Weights.check(); err != nil {
				return fmt.Errorf("quantise: layer %d weights: %w", k, err)
			}
			if err := l.Biases.check(); err != nil {
				return fmt.Errorf("quantise: layer %d biases: %w", k, err)
			}
		}
		return nil
	}
	if err := o.Weights.check(); err != nil {
		return fmt.Errorf("quantise: Weights: %w", err)
	}
	if err := o.Biases.check(); err != nil {
		return fmt.Errorf("quantise: Biases: %w", err)
	}
	return nil
}

// layer returns the formats of layer k.
func (o Options) layer(k int) LayerFormats {
	if o.Layers != nil {
		return o.Layers[k]
	}
	return LayerFormats{Weights: o.Weights, Biases: o.Biases}
}

// Network returns the quantised copy of net: every weight w of layer k
// becomes Quantise(w) in the layer's weight format, every bias likewise in
// its bias format; activations are kept. When a format has IntBits and does
// not saturate, values out of range are an error wrapping ErrRange that says
// how many there are and the largest magnitude. net is not modified.
func Network(net *nn.Network, opts Options) (*nn.Network, error) {
	if err := net.Validate(); err != nil {
		return nil, fmt.Errorf("quantise: %w", err)
	}
	if err := net.RequirePlain("fixed-point quantisation"); err != nil {
		return nil, fmt.Errorf("quantise: %w", err)
	}
	if opts.Layers != nil && len(opts.Layers) != len(net.Layers) {
		return nil, fmt.Errorf("quantise: %d layer formats for %d layers: %w", len(opts.Layers), len(net.Layers), ErrFormat)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.ActFracBits < 0 || opts.ActFracBits > MaxFracBits {
		return nil, fmt.Errorf("quantise: ActFracBits is %d, want 0 to %d: %w", opts.ActFracBits, MaxFracBits, ErrFormat)
	}
	q := net.Clone()
	if opts.ActFracBits > 0 {
		step := math.Ldexp(1, -opts.ActFracBits)
		for k := range q.Layers[:len(q.Layers)-1] {
			q.Layers[k].Post = &nn.Quantiser{Scale: []float64{step}, Zero: []int64{0}, Lo: -actRange, Hi: actRange}
		}
	}
	for k, l := range q.Layers {
		f := opts.layer(k)
		var w []float64 // the weights: W's entries, or the kernel of a convolution
		if l.Conv != nil {
			w = l.Conv.Kernel
		} else {
			w = l.W.RawMatrix().Data
		}
		if err := quantiseInPlace(w, f.Weights); err != nil {
			return nil, fmt.Errorf("quantise: layer %d weights: %w", k, err)
		}
		if err := quantiseInPlace(l.B, f.Biases); err != nil {
			return nil, fmt.Errorf("quantise: layer %d biases: %w", k, err)
		}
	}
	if err := q.Validate(); err != nil {
		return nil, fmt.Errorf("quantise: %w", err) // an internal error: rounding keeps values finite
	}
	return q, nil
}

// Vector returns x quantised elementwise in format f (the input quantiser
// of the paper's quantised-input mode). Non-finite values, and values out of
// range when f does not saturate, are errors.
func Vector(x []float64, f Format) ([]float64, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("quantise: input %d is %v: %w", i, v, nn.ErrNotFinite)
		}
	}
	out := append([]float64(nil), x...)
	if err := quantiseInPlace(out, f); err != nil {
		return nil, fmt.Errorf("quantise: input: %w", err)
	}
	return out, nil
}

// quantiseInPlace quantises v in format f, reporting values out of range
// (unless f saturates).
func quantiseInPlace(v []float64, f Format) error {
	bad, worst := 0, 0.0
	for i, s := range v {
		q, out := f.Quantise(s)
		if out && !f.Saturate {
			bad++
			worst = max(worst, math.Abs(s))
		}
		v[i] = q
	}
	if bad > 0 {
		noun := "values"
		if bad == 1 {
			noun = "value"
		}
		return fmt.Errorf("%d %s out of the range of %v (largest magnitude %g, limit %g): %w",
			bad, noun, f, worst, f.Limit(), ErrRange)
	}
	return nil
}
