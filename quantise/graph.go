package quantise

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/nn"
)

// Graph returns the fixed-point copy of g: the weights and biases of every
// affine node with parameters become Quantise(v) in opts.Weights and
// opts.Biases (per-layer formats, opts.Layers, number those nodes in
// order); maps without parameters (selections, average pools) and every
// other node are kept. Options.ActFracBits is not supported on graphs
// yet. g is not modified; the error names the node.
func Graph(g *nn.Graph, opts Options) (*nn.Graph, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.ActFracBits != 0 {
		return nil, fmt.Errorf("quantise: activation rounding (ActFracBits) of a graph: %w", ErrFormat)
	}
	return eachParam(g, func(k int, v []float64, weights bool) error {
		if opts.Layers != nil && k >= len(opts.Layers) {
			return fmt.Errorf("%d layer formats for more weighted nodes: %w", len(opts.Layers), ErrFormat)
		}
		f := opts.layer(k)
		if weights {
			return quantiseInPlace(v, f.Weights)
		}
		return quantiseInPlace(v, f.Biases)
	})
}

// Float16Graph returns the copy of g with every weight and bias rounded to
// IEEE half precision (RoundFloat16); a parameter that overflows is an
// error wrapping ErrRange.
func Float16Graph(g *nn.Graph) (*nn.Graph, error) {
	return eachParam(g, func(_ int, v []float64, _ bool) error {
		for i, w := range v {
			if v[i] = RoundFloat16(w); math.IsInf(v[i], 0) {
				return fmt.Errorf("value %d = %g overflows float16 (largest %d): %w", i, w, Float16Max, ErrRange)
			}
		}
		return nil
	})
}

// eachParam returns a copy of g with fn applied in place to the weights
// and then the biases of each affine node with parameters, k counting
// those nodes from 0.
func eachParam(g *nn.Graph, fn func(k int, v []float64, weights bool) error) (*nn.Graph, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("quantise: %w", err)
	}
	q := g.Clone()
	k := 0
	for i, n := range q.Nodes {
		a, ok := n.Op.(*nn.Affine)
		if !ok || a.Weights() == nil {
			continue
		}
		if err := fn(k, a.Weights(), true); err != nil {
			return nil, fmt.Errorf("quantise: %s weights: %w", q.Label(i), err)
		}
		if err := fn(k, a.B, false); err != nil {
			return nil, fmt.Errorf("quantise: %s biases: %w", q.Label(i), err)
		}
		a.Int = nil // the values are no longer those integers times scales
		k++
	}
	return q, nil
}
