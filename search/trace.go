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
	// out holds each layer's outputs for Reforward (nil: none yet).
	out [][]float64
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

// NewTrace returns an empty trace of f, for Reforward.
func NewTrace(f *nn.Network) *Trace { return &Trace{f: f} }

// Reforward evaluates the trace's network at x as Forward does, into the
// trace's own storage: an attack evaluates one network at many points in
// turn, and Forward's fresh storage for each was a tenth of the bytes a
// branch and bound node allocated. The output returned, like the trace, is
// overwritten by the next call. It returns an error if len(x) is not the
// network's input size.
func (tr *Trace) Reforward(x []float64) ([]float64, error) {
	f := tr.f
	if len(x) != f.InputSize() {
		return nil, fmt.Errorf("search: input has %d values, network takes %d: %w", len(x), f.InputSize(), nn.ErrDimension)
	}
	if tr.out == nil {
		n := len(f.Layers)
		tr.out, tr.t.pre, tr.t.gate = make([][]float64, n), make([][]float64, n), make([][]float64, n)
		for k, l := range f.Layers {
			tr.out[k], tr.t.pre[k] = make([]float64, l.Out()), make([]float64, l.Out())
			if l.Pre != nil || l.Post != nil {
				tr.t.gate[k] = make([]float64, l.Out())
			}
		}
	}
	h := quantiseInput(f, x)
	for k, l := range f.Layers {
		forwardLayer(l, h, tr.out[k], tr.t.pre[k], tr.t.gate[k])
		h = tr.out[k]
	}
	return h, nil
}
