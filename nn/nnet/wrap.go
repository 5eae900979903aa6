package nnet

import (
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// Wrap returns the raw-units network around a core network (normally the
// core read from the file, or a quantised or pruned copy of it): the input
// clipping (nn.Clip), the normalisation (x - mean)/range and the output
// de-normalisation y*range + mean, with the affine maps fused (nn.FuseLayers).
// Steps that change nothing (no bounds, mean 0 and range 1) are left out.
// A quantised core (an int8 copy: an input quantiser, quantised layers or
// integer parameters) is kept as it is: its input quantiser quantises the
// normalised input (the output quantiser of the normalisation's last
// layer), and only the clipping and normalisation are fused, so that
// every layer keeps its integers (nn.Layer.Int). core is not modified. It
// returns an error wrapping nn.ErrDimension when core's sizes do not
// match the header.
func (info *Info) Wrap(core *nn.Network) (*nn.Network, error) {
	if err := core.Validate(); err != nil {
		return nil, err
	}
	n := len(info.InputMean)
	if core.InputSize() != n {
		return nil, fmt.Errorf("nnet: core network takes %d inputs, header has %d: %w", core.InputSize(), n, nn.ErrDimension)
	}
	var layers []nn.Layer
	if lo, hi, ok := info.clipBounds(); ok {
		clip, err := nn.Clip(lo, hi)
		if err != nil {
			return nil, fmt.Errorf("nnet: input clipping: %w", err)
		}
		layers = append(layers, clip...)
	}
	if !isIdentity(info.InputMean, info.InputRange) {
		scale, shift := make([]float64, n), make([]float64, n)
		for j := range n {
			scale[j] = 1 / info.InputRange[j]
			shift[j] = -info.InputMean[j] / info.InputRange[j]
		}
		l, err := nn.ScaleShift(scale, shift)
		if err != nil {
			return nil, err
		}
		layers = append(layers, l)
	}
	var after []nn.Layer
	if info.OutputMean != 0 || info.OutputRange != 1 {
		m := core.OutputSize()
		l, err := nn.ScaleShift(filled(m, info.OutputRange), filled(m, info.OutputMean))
		if err != nil {
			return nil, err
		}
		after = append(after, l)
	}
	core = core.Clone()
	if quantised(core) {
		return wrapQuantised(layers, core, after)
	}
	fused, err := nn.FuseLayers(slices.Concat(layers, core.Layers, after))
	if err != nil {
		return nil, err
	}
	return checkWrapped(&nn.Network{Layers: fused})
}

// quantised reports whether core has quantisers or integer parameters.
func quantised(core *nn.Network) bool {
	return core.Quantised() || slices.ContainsFunc(core.Layers, func(l nn.Layer) bool { return l.Int != nil })
}

// wrapQuantised returns Wrap's network of a quantised core (a clone):
// the layers before it fused, core's input quantiser on their output, then
// core's layers and the layers after it, none fused.
func wrapQuantised(before []nn.Layer, core *nn.Network, after []nn.Layer) (*nn.Network, error) {
	before, err := nn.FuseLayers(before)
	if err != nil {
		return nil, err
	}
	net := &nn.Network{Layers: slices.Concat(before, core.Layers, after), Input: core.Input}
	if n := len(before); n > 0 && core.Input != nil {
		net.Layers[n-1].Post, net.Input = core.Input, nil
	}
	return checkWrapped(net)
}

// checkWrapped returns net, or why it is not a valid network.
func checkWrapped(net *nn.Network) (*nn.Network, error) {
	if err := net.Validate(); err != nil {
		// Fusing can overflow, e.g. tiny ranges times large weights.
		return nil, fmt.Errorf("nnet: normalisation cannot be built into the network: %w", err)
	}
	return net, nil
}

// clipBounds returns the clipping bounds with absent ones (see NoBound) as
// infinities, and whether any bound is present.
func (info *Info) clipBounds() (lo, hi []float64, present bool) {
	n := len(info.InputMin)
	lo, hi = make([]float64, n), make([]float64, n)
	for j := range n {
		lo[j], hi[j] = math.Inf(-1), math.Inf(1)
		if v := info.InputMin[j]; math.Abs(v) < NoBound {
			lo[j], present = v, true
		}
		if v := info.InputMax[j]; math.Abs(v) < NoBound {
			hi[j], present = v, true
		}
	}
	return lo, hi, present
}

// NormaliseInput returns the core network's input for the raw input x:
// (min(max(x, min), max) - mean)/range, computed directly in float64.
func (info *Info) NormaliseInput(x []float64) ([]float64, error) {
	if len(x) != len(info.InputMean) {
		return nil, fmt.Errorf("nnet: input has %d values, network takes %d: %w", len(x), len(info.InputMean), nn.ErrDimension)
	}
	lo, hi, _ := info.clipBounds()
	out := make([]float64, len(x))
	for j, v := range x {
		out[j] = (min(max(v, lo[j]), hi[j]) - info.InputMean[j]) / info.InputRange[j]
	}
	return out, nil
}

// DenormaliseOutput returns the raw output y*range + mean of the core
// network's output y.
func (info *Info) DenormaliseOutput(y []float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = v*info.OutputRange + info.OutputMean
	}
	return out
}

// isIdentity reports whether every mean is 0 and every range 1.
func isIdentity(mean, rng []float64) bool {
	for j := range mean {
		if mean[j] != 0 || rng[j] != 1 {
			return false
		}
	}
	return true
}

// filled returns n copies of v.
func filled(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}
