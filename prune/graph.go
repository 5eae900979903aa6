package prune

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/nnbound/nnbound/nn"
)

// WeightsGraph is Weights for a graph: the copy of g with the
// smallest-magnitude weights of its dense maps and convolutions set to
// zero (in each such node with PerLayer, over all of them with Global),
// and how many it zeroed. Biases and every other node are kept; a chain's
// graph is pruned as Weights prunes the chain. g is not modified; a graph
// with quantisers is an error wrapping nn.ErrQuantised.
func WeightsGraph(g *nn.Graph, opts WeightOptions) (*nn.Graph, int, error) {
	out, err := plainClone(g, "weight pruning")
	if err != nil {
		return nil, 0, err
	}
	if err := opts.Validate(); err != nil {
		return nil, 0, err
	}
	var groups [][]weight
	if opts.Scope == Global {
		groups = [][]weight{nil}
	}
	for _, k := range prunable(out) {
		if opts.Scope == PerLayer {
			groups = append(groups, nil)
		}
		grp := &groups[len(groups)-1]
		m := affineMap(out, k)
		for i := range mapUnits(m) {
			for j, v := range mapUnitWeights(m, i) {
				*grp = append(*grp, weight{math.Abs(v), k, i, j})
			}
		}
	}
	zeroed := zeroSmallest(groups, opts.Sparsity, func(w weight) {
		mapUnitWeights(affineMap(out, w.layer), w.row)[w.c] = 0
	})
	return out, zeroed, nil
}

// NeuronsGraph is Neurons for a graph: the candidates are the neurons
// (rows) of the dense maps and the output channels of the convolutions of
// g, except those of the first such node and the last (the output
// layer), ranked by the 2-norms of their incoming weights. Neuron.Layer
// is the node's index in g.Nodes. Zeroing a neuron's weights keeps every
// shape, so it works on any graph; Remove deletes the channel, which
// works where it reaches the next dense map or convolution through
// operations per channel only (activations, scalings, poolings) and is
// an error naming the node that prevents it otherwise (a residual Add, a
// Concat, a grouped convolution, the output). g is not modified; a graph
// with quantisers is an error wrapping nn.ErrQuantised.
func NeuronsGraph(g *nn.Graph, opts NeuronOptions) (*nn.Graph, []Neuron, error) {
	out, err := plainClone(g, "neuron pruning")
	if err != nil {
		return nil, nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, nil, err
	}
	nodes := prunable(out)
	if len(nodes) < 3 && opts.Count > 0 {
		return nil, nil, fmt.Errorf("prune: a graph with %d dense or convolution nodes has none between the first and the last: %w", len(nodes), ErrOptions)
	}
	var all [][]Neuron
	for _, k := range nodes[1 : len(nodes)-1] {
		m := affineMap(out, k)
		ns := make([]Neuron, mapUnits(m))
		for i := range ns {
			ns[i] = Neuron{Layer: k, Index: i, Norm: floats.Norm(mapUnitWeights(m, i), 2)}
		}
		all = append(all, ns)
	}
	chosen, err := pick(all, opts, "node", "the dense and convolution nodes between the first and the last")
	if err != nil {
		return nil, nil, err
	}
	if opts.Remove {
		if err := removeGraph(out, chosen); err != nil {
			return nil, nil, err
		}
		return out, chosen, nil
	}
	for _, n := range chosen {
		clear(mapUnitWeights(affineMap(out, n.Layer), n.Index))
	}
	return out, chosen, nil
}

// plainClone validates g, refuses quantisers (naming user) and returns a
// deep copy of g.
func plainClone(g *nn.Graph, user string) (*nn.Graph, error) {
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	for k, n := range g.Nodes {
		a, isAffine := n.Op.(*nn.Affine)
		if _, isQ := n.Op.(*nn.Quantise); isQ || (isAffine && a.Int != nil) {
			return nil, fmt.Errorf("prune: %s: quantised (QDQ int8) graphs are not handled by %s: %w", g.Label(k), user, nn.ErrQuantised)
		}
	}
	return g.Clone(), nil
}

// prunable returns the indices of the nodes of g whose map is a dense
// matrix or a convolution, in order.
func prunable(g *nn.Graph) []int {
	var ks []int
	for k, n := range g.Nodes {
		if a, ok := n.Op.(*nn.Affine); ok && mapUnits(a.M) > 0 {
			ks = append(ks, k)
		}
	}
	return ks
}

// affineMap returns the map of node k of g, an affine node.
func affineMap(g *nn.Graph, k int) nn.Linear { return g.Nodes[k].Op.(*nn.Affine).M }
