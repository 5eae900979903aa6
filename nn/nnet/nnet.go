// Package nnet reads networks in the NNet text format of the ACAS Xu
// networks (Kyle Julian, Stanford 2016; sisl/NNet).
//
// An NNet file holds, after optional "//" comment lines:
//
//	numLayers, inputSize, outputSize, maxLayerSize,
//	size_0, size_1, ..., size_numLayers,          (size_0 = inputSize)
//	flag,                                          (unused)
//	input minimums, input maximums,                (one line each)
//	input means + output mean, input ranges + output range,
//
// then for each layer k one line per output neuron with the size_k weights
// into it (W is [out][in]), then one line per output neuron with its bias.
// Hidden layers are ReLU, the last layer is affine. Every line ends with a
// comma.
//
// The reference evaluator (sisl/NNet's C++ evaluate_network) works in raw
// units:
//
//	x_norm = (min(max(x, min), max) - mean) / range,
//	y_norm = core(x_norm),
//	y      = y_norm * outputRange + outputMean.
//
// Read returns this whole raw-units network by default, with the clipping
// built exactly by nn.Clip, the normalisation fused into the first affine
// map and the de-normalisation fused into the last. With Options.Core it
// returns the core network, which maps x_norm to y_norm, as verification
// benchmarks (Marabou, VNN-COMP, ReluDiff, NeuroDiff) use it.
//
// Header trap: some headers (the run2a ACAS Xu files) hold more minimums,
// maximums, means and ranges than inputs (7 and 8 for 5 inputs). The first
// inputSize entries belong to the inputs and the output mean and range are
// the LAST entries of their lines; the ones between are ignored (and noted
// in Info.Notes).
package nnet

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/internal/gzfile"
	"github.com/nnbound/nnbound/nn"
)

// ErrFormat reports a malformed NNet file.
var ErrFormat = errors.New("malformed NNet file")

// Options says how to read an NNet file.
type Options struct {
	// Core loads the normalised core network (x_norm -> y_norm) instead of
	// the raw-units network with clipping and normalisation built in.
	Core bool
}

// Read reads the NNet file at path, gzipped or not (see internal/gzfile
// for when path.gz is read instead). Errors name the file read and line.
func Read(path string, opts Options) (*nn.Network, *Info, error) {
	data, name, err := gzfile.ReadFile(path, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("nnet: %w", err)
	}
	return Parse(name, data, opts)
}

// Parse reads an NNet file from data; name is used in error messages. It
// allocates memory proportional to len(data), whatever sizes the header
// declares.
func Parse(name string, data []byte, opts Options) (*nn.Network, *Info, error) {
	r := &lineReader{name: name, data: data}
	info, err := readHeader(r, len(data))
	if err != nil {
		return nil, nil, err
	}
	core, err := readLayers(r, info.Sizes)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := r.next(); ok {
		return nil, nil, r.errorf("unexpected data after the last layer")
	}
	if err := core.Validate(); err != nil {
		return nil, nil, fmt.Errorf("nnet: %s: %w", name, err)
	}
	info.Core = opts.Core
	if opts.Core {
		return core, info, nil
	}
	net, err := info.Wrap(core)
	if err != nil {
		return nil, nil, fmt.Errorf("nnet: %s: %w", name, err)
	}
	return net, info, nil
}

// readLayers reads the weight rows and biases of every layer.
func readLayers(r *lineReader, sizes []int) (*nn.Network, error) {
	net := &nn.Network{Layers: make([]nn.Layer, len(sizes)-1)}
	for k := range net.Layers {
		in, out := sizes[k], sizes[k+1]
		w := make([]float64, out*in)
		for i := range out {
			if err := r.nextRow(fmt.Sprintf("weight row %d of layer %d", i+1, k+1), w[i*in:(i+1)*in]); err != nil {
				return nil, err
			}
		}
		b := make([]float64, out)
		for i := range out {
			if err := r.nextRow(fmt.Sprintf("bias %d of layer %d", i+1, k+1), b[i:i+1]); err != nil {
				return nil, err
			}
		}
		act := nn.Activation{Kind: nn.ReLU}
		if k == len(net.Layers)-1 {
			act = nn.Activation{Kind: nn.Identity}
		}
		net.Layers[k] = nn.Layer{W: mat.NewDense(out, in, w), B: b, Act: act}
	}
	return net, nil
}
