// Package prune makes pruned copies of a network: neuron pruning as in the
// paper's pruning example (Li, Drummond, Duncan, L4DC 2021, the pruning
// figure of Appendix 7) and unstructured magnitude pruning of weights.
//
// Neuron pruning ranks the neurons of the hidden layers after the first by
// the 2-norm of their incoming weight row ||W^k_i||_2 and zeroes the rows of
// the smallest. Their biases are kept, so a pruned neuron outputs the
// constant act(b_i), exactly as in the authors' pruned network. With Remove
// the neuron is deleted instead (its row, its bias and its column of the
// next layer's weights), which also drops that constant. A convolutional
// layer is pruned per output channel: a channel's norm is that of its
// kernel, and zeroing or removing it acts on the whole channel (its kernel,
// its bias, and the next layer's input channel or columns; see
// nn.Network.SelectChannels).
//
// Ties are broken by layer, then by index (then by row and column for
// weights), so the result never depends on sort stability.
package prune

import (
	"errors"
	"fmt"
)

// ErrOptions reports invalid pruning options or options the network cannot
// satisfy (more neurons than there are candidates, removing a whole layer).
var ErrOptions = errors.New("invalid pruning options")

// Scope says whether a budget applies to each layer or to the whole network.
type Scope int

// The scopes.
const (
	Global   Scope = iota // rank all candidates of the network together
	PerLayer              // apply the budget in every layer separately
)

var scopeNames = [...]string{"global", "per-layer"}

// String returns the scope's name as used on the command line.
func (s Scope) String() string {
	if s < 0 || int(s) >= len(scopeNames) {
		return fmt.Sprintf("Scope(%d)", int(s))
	}
	return scopeNames[s]
}

// ParseScope returns the scope named s.
func ParseScope(s string) (Scope, error) {
	for i, n := range scopeNames {
		if n == s {
			return Scope(i), nil
		}
	}
	return 0, fmt.Errorf("prune: unknown scope %q (want global or per-layer): %w", s, ErrOptions)
}

// validScope reports an unknown scope.
func validScope(s Scope) error {
	if s < Global || s > PerLayer {
		return fmt.Errorf("prune: unknown scope %v: %w", s, ErrOptions)
	}
	return nil
}
