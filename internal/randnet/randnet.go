// Package randnet makes seeded random feed-forward networks as the paper's
// authors made them (compute_weights.m in their code): every weight and bias
// drawn from the standard normal distribution, ReLU hidden layers and an
// identity output layer; and (Attention) random pre-norm attention blocks
// as computation graphs, for the soundness tests of transformers.
//
// The same seed always gives the same network, on every platform: the
// generator is math/rand/v2's PCG and the normal variates come from its
// NormFloat64.
package randnet

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// New returns a network with layer sizes sizes = [n_x, n_1, ..., n_l, n_f]
// whose weights and biases are standard normal draws from rng, taken layer
// by layer, row by row (all weights of a layer, then its biases). Hidden
// layers use ReLU and the last layer is affine. It returns an error if sizes
// has fewer than two entries or a non-positive size.
func New(rng *rand.Rand, sizes []int) (*nn.Network, error) {
	if len(sizes) < 2 {
		return nil, fmt.Errorf("randnet: %d layer sizes, want at least input and output: %w", len(sizes), nn.ErrDimension)
	}
	for i, s := range sizes {
		if s <= 0 {
			return nil, fmt.Errorf("randnet: layer size %d is %d: %w", i, s, nn.ErrDimension)
		}
	}
	net := &nn.Network{Layers: make([]nn.Layer, len(sizes)-1)}
	for k := range net.Layers {
		in, out := sizes[k], sizes[k+1]
		w := mat.NewDense(out, in, nil)
		for i := range out {
			for j := range in {
				w.Set(i, j, rng.NormFloat64())
			}
		}
		b := make([]float64, out)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		act := nn.Activation{Kind: nn.ReLU}
		if k == len(net.Layers)-1 {
			act = nn.Activation{Kind: nn.Identity}
		}
		net.Layers[k] = nn.Layer{W: w, B: b, Act: act}
	}
	return net, nil
}

// Paper returns the network of the paper's experiments: n_x inputs, layers
// hidden layers of width neurons, n_f outputs, drawn from the PCG generator
// seeded with (seed, layers). It panics if a size is not positive (a
// programming error: the sizes are constants of the experiment).
func Paper(seed uint64, nx, layers, width, nf int) *nn.Network {
	net, err := New(rand.New(rand.NewPCG(seed, uint64(layers))), Sizes(nx, layers, width, nf))
	if err != nil {
		panic(err)
	}
	return net
}

// Sizes returns [n_x, n_1, ..., n_l, n_f] for l hidden layers of width
// neurons, the usual argument of New.
func Sizes(nx, layers, width, nf int) []int {
	s := []int{nx}
	for range layers {
		s = append(s, width)
	}
	return append(s, nf)
}

// Permuted returns a copy of f with the neurons of every hidden layer
// shuffled by rng (the rows of the layer and the matching columns of the
// next): the same function, computed in another order, whose difference
// from f is exactly 0 in real arithmetic. f must be a dense chain
// without quantisers (Permuted panics otherwise: a programming error).
func Permuted(f *nn.Network, rng *rand.Rand) *nn.Network {
	g := f.Clone()
	for k := range len(g.Layers) - 1 {
		cur, next := &g.Layers[k], &g.Layers[k+1]
		if cur.Pre != nil || cur.Post != nil || cur.W == nil || next.W == nil {
			panic("randnet: Permuted takes a dense chain without quantisers")
		}
		perm := rng.Perm(len(cur.B))
		w, b := mat.DenseCopyOf(cur.W), append([]float64(nil), cur.B...)
		wn := mat.DenseCopyOf(next.W)
		for i, p := range perm {
			cur.W.SetRow(i, w.RawRowView(p))
			cur.B[i] = b[p]
			next.W.SetCol(i, mat.Col(nil, p, wn))
		}
	}
	return g
}
