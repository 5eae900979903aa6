package search

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
)

// Trace is one evaluation of a network with its pre-activations recorded,
// for gradient-based attacks outside this package (package verify).
type Trace struct {
	f *nn.Network
	t trace
}

// Forward returns f(x), evaluated as nn.Network.Eval does, and the trace
// of the evaluation. It returns an error if len(x) is not f.InputSize().
func Forward(f *nn.Network, x []float64) ([]float64, *Trace, error) {
	if len(x) != f.InputSize() {
		return nil, nil, fmt.Errorf("search: input has %d values, network takes %d: %w", len(x), f.InputSize(), nn.ErrDimension)
	}
	tr := &Trace{f: f}
	return forward(f, x, &tr.t), tr, nil
}

// Backward returns J^T v for the Jacobian J of the network at the traced
// input (right derivatives at kinks); v has one entry per output.
func (tr *Trace) Backward(v []float64) []float64 { return backward(tr.f, &tr.t, v) }
