package prune

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// WeightOptions says which weights to prune.
type WeightOptions struct {
	// Sparsity is the fraction of weights to set to zero, in [0, 1]: the
	// round(Sparsity*n) (ties to even) of smallest magnitude among the n
	// weights in scope. Weights that are already zero count.
	Sparsity float64
	// Scope is PerLayer (each layer loses that fraction) or Global (the
	// smallest weights of the whole network, wherever they are).
	Scope Scope
}

// DefaultWeightOptions returns half the weights of every layer.
func DefaultWeightOptions() WeightOptions {
	return WeightOptions{Sparsity: 0.5, Scope: PerLayer}
}

// Validate reports a Sparsity outside [0, 1] or an unknown Scope.
func (o WeightOptions) Validate() error {
	if !(o.Sparsity >= 0 && o.Sparsity <= 1) {
		return fmt.Errorf("prune: Sparsity is %v, want a fraction in [0, 1]: %w", o.Sparsity, ErrOptions)
	}
	return validScope(o.Scope)
}

// weight locates one weight and its magnitude.
type weight struct {
	mag           float64
	layer, row, c int
}

// Weights returns the copy of net with the smallest-magnitude weights set to
// zero and how many weights it zeroed (counting those already zero). Biases
// are kept. net is not modified.
func Weights(net *nn.Network, opts WeightOptions) (*nn.Network, int, error) {
	if err := net.Validate(); err != nil {
		return nil, 0, fmt.Errorf("prune: %w", err)
	}
	if err := net.RequirePlain("weight pruning"); err != nil {
		return nil, 0, fmt.Errorf("prune: %w", err)
	}
	if err := opts.Validate(); err != nil {
		return nil, 0, err
	}
	out := net.Clone()
	var groups [][]weight
	if opts.Scope == Global {
		groups = [][]weight{nil}
	}
	for k, l := range out.Layers {
		if opts.Scope == PerLayer {
			groups = append(groups, nil)
		}
		g := &groups[len(groups)-1]
		for i := range units(l) {
			for j, v := range unitWeights(l, i) {
				*g = append(*g, weight{math.Abs(v), k, i, j})
			}
		}
	}
	zeroed := zeroSmallest(groups, opts.Sparsity, func(w weight) {
		unitWeights(out.Layers[w.layer], w.row)[w.c] = 0
	})
	return out, zeroed, nil
}

// zeroSmallest calls zero on the round(sparsity*n) weights of smallest
// magnitude (ties by layer, row, column) of each group of n weights, and
// returns how many it zeroed.
func zeroSmallest(groups [][]weight, sparsity float64, zero func(weight)) int {
	zeroed := 0
	for _, g := range groups {
		n := int(math.RoundToEven(sparsity * float64(len(g))))
		slices.SortFunc(g, func(a, b weight) int {
			return cmp.Or(cmp.Compare(a.mag, b.mag), cmp.Compare(a.layer, b.layer), cmp.Compare(a.row, b.row), cmp.Compare(a.c, b.c))
		})
		for _, w := range g[:n] {
			zero(w)
		}
		zeroed += n
	}
	return zeroed
}
