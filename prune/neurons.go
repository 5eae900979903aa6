package prune

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/nnbound/nnbound/nn"
)

// NeuronOptions says which neurons to prune.
type NeuronOptions struct {
	// Count is the number of neurons to prune: in all candidate layers
	// together (Global, the paper's "eight hidden neurons with smallest
	// 2-norms") or in each candidate layer (PerLayer).
	Count int
	// Scope is Global or PerLayer.
	Scope Scope
	// Remove deletes the neurons instead of zeroing their incoming weights.
	Remove bool
}

// DefaultNeuronOptions returns the paper's setting: 8 neurons, ranked
// globally, zeroed.
func DefaultNeuronOptions() NeuronOptions {
	return NeuronOptions{Count: 8, Scope: Global}
}

// Validate reports a negative Count or an unknown Scope.
func (o NeuronOptions) Validate() error {
	if o.Count < 0 {
		return fmt.Errorf("prune: Count is %d, want 0 or more: %w", o.Count, ErrOptions)
	}
	return validScope(o.Scope)
}

// Neuron identifies a hidden neuron: row Index of layer Layer's weights
// (net.Layers[Layer]), and the 2-norm of that row before pruning. In a
// convolutional layer it is a whole output channel: Index is the channel
// and Norm the 2-norm of its kernel (pruning is per channel).
type Neuron struct {
	Layer, Index int
	Norm         float64
}

// Neurons returns the pruned copy of net and the neurons pruned, in the
// order they were ranked (smallest norm first). The candidates are the
// neurons of layers 1 .. len(net.Layers)-2, the hidden layers after the
// first. net is not modified.
func Neurons(net *nn.Network, opts NeuronOptions) (*nn.Network, []Neuron, error) {
	if err := net.Validate(); err != nil {
		return nil, nil, fmt.Errorf("prune: %w", err)
	}
	if err := net.RequirePlain("neuron pruning"); err != nil {
		return nil, nil, fmt.Errorf("prune: %w", err)
	}
	if err := opts.Validate(); err != nil {
		return nil, nil, err
	}
	chosen, err := choose(net, opts)
	if err != nil {
		return nil, nil, err
	}
	out := net.Clone()
	if opts.Remove {
		if err := remove(out, chosen); err != nil {
			return nil, nil, err
		}
		return out, chosen, nil
	}
	for _, n := range chosen {
		clear(unitWeights(out.Layers[n.Layer], n.Index))
	}
	return out, chosen, nil
}

// choose ranks the candidate neurons and returns those to prune.
func choose(net *nn.Network, opts NeuronOptions) ([]Neuron, error) {
	last := len(net.Layers) - 1
	if last < 2 && opts.Count > 0 {
		return nil, fmt.Errorf("prune: a network with %d layers has no hidden layer after the first: %w", len(net.Layers), ErrOptions)
	}
	var all [][]Neuron // per candidate layer
	for k := 1; k < last; k++ {
		l := net.Layers[k]
		ns := make([]Neuron, units(l))
		for i := range ns {
			ns[i] = Neuron{Layer: k, Index: i, Norm: floats.Norm(unitWeights(l, i), 2)}
		}
		all = append(all, ns)
	}
	return pick(all, opts, "layer", "the hidden layers after the first")
}

// pick ranks the candidate neurons of each unit (a layer, a node; noun
// names it in errors, where names all candidates) and returns those to
// prune: opts.Count of each unit, or of all together.
func pick(all [][]Neuron, opts NeuronOptions, noun, where string) ([]Neuron, error) {
	total := 0
	for _, ns := range all {
		slices.SortFunc(ns, byNorm)
		total += len(ns)
	}
	if opts.Scope == PerLayer {
		var chosen []Neuron
		for _, ns := range all {
			if opts.Count > len(ns) {
				return nil, fmt.Errorf("prune: %d neurons per %s asked, %s %d has %d: %w", opts.Count, noun, noun, ns[0].Layer, len(ns), ErrOptions)
			}
			chosen = append(chosen, ns[:opts.Count]...)
		}
		return chosen, nil
	}
	if opts.Count > total {
		return nil, fmt.Errorf("prune: %d neurons asked, %s have %d: %w", opts.Count, where, total, ErrOptions)
	}
	flat := slices.Concat(all...)
	slices.SortFunc(flat, byNorm)
	return flat[:opts.Count], nil
}

// byNorm orders neurons by norm, then layer, then index.
func byNorm(a, b Neuron) int {
	return cmp.Or(cmp.Compare(a.Norm, b.Norm), cmp.Compare(a.Layer, b.Layer), cmp.Compare(a.Index, b.Index))
}

// remove deletes the chosen neurons from net: their weight rows and biases
// in their layer and their columns in the next layer.
func remove(net *nn.Network, chosen []Neuron) error {
	gone := map[int]map[int]bool{}
	for _, n := range chosen {
		if gone[n.Layer] == nil {
			gone[n.Layer] = map[int]bool{}
		}
		gone[n.Layer][n.Index] = true
	}
	for _, k := range slices.Sorted(maps.Keys(gone)) {
		drop := gone[k]
		l := net.Layers[k]
		if len(drop) == units(l) {
			return fmt.Errorf("prune: removing all %d neurons of layer %d: %w", units(l), k, ErrOptions)
		}
		var keep []int
		for i := range units(l) {
			if !drop[i] {
				keep = append(keep, i)
			}
		}
		sel := net.SelectNeurons
		if l.Conv != nil {
			sel = net.SelectChannels
		}
		if err := sel(k, keep); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
	}
	return nil
}

// units returns the number of prunable units of l: its neurons, or the
// output channels of a convolution.
func units(l nn.Layer) int { return mapUnits(layerMap(l)) }

// unitWeights returns the incoming weights of unit i of l, as the layer's
// own slice: row i of W, or the kernel of output channel i.
func unitWeights(l nn.Layer, i int) []float64 { return mapUnitWeights(layerMap(l), i) }

// layerMap returns l's linear map: its convolution or its matrix.
func layerMap(l nn.Layer) nn.Linear {
	if l.Conv != nil {
		return l.Conv
	}
	return nn.DenseMap{W: l.W}
}

// mapUnits returns the number of prunable units of a dense map or a
// convolution (its rows, or its output channels), 0 for other maps.
func mapUnits(m nn.Linear) int {
	switch m := m.(type) {
	case *nn.Conv2D:
		return m.OutC
	case nn.DenseMap:
		return m.Out()
	}
	return 0
}

// mapUnitWeights returns the incoming weights of unit i of a dense map
// or a convolution, as the map's own slice: row i of the matrix, or the
// kernel of output channel i.
func mapUnitWeights(m nn.Linear, i int) []float64 {
	if c, ok := m.(*nn.Conv2D); ok {
		per := len(c.Kernel) / c.OutC
		return c.Kernel[i*per : (i+1)*per]
	}
	return m.(nn.DenseMap).W.RawRowView(i)
}
