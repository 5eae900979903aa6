package search

import (
	"context"
	"fmt"
	"slices"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// MaxErrorGraph is MaxError for networks given as graphs (nn.Graph): the
// same phases but the exact enumeration, each error evaluated as
// nn.Graph.Eval does.
func MaxErrorGraph(ctx context.Context, g1, g2 *nn.Graph, in spec.Inputs, q spec.Quantity, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if err := in.Validate(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	for i, g := range []*nn.Graph{g1, g2} {
		if err := g.Validate(); err != nil {
			return nil, fmt.Errorf("search: network %d: %w", i+1, err)
		}
		if g.InputSize() != in.Box.Dim() {
			return nil, fmt.Errorf("search: network %d takes %d inputs, box has %d: %w", i+1, g.InputSize(), in.Box.Dim(), nn.ErrDimension)
		}
		if q.C != nil && len(q.C) != g.OutputSize() {
			return nil, fmt.Errorf("search: C has %d entries for %d outputs: %w", len(q.C), g.OutputSize(), spec.ErrQuantity)
		}
	}
	if g1.OutputSize() != g2.OutputSize() {
		return nil, fmt.Errorf("search: network 1 has %d outputs, network 2 has %d: %w", g1.OutputSize(), g2.OutputSize(), nn.ErrDimension)
	}
	opts.Exact = false
	return run(ctx, newModelProblem(graphModel{g1}, graphModel{g2}, in, in.Box, q), opts)
}

// graphModel is a graph in the search.
type graphModel struct{ g *nn.Graph }

func (m graphModel) value(x []float64) []float64 {
	y, _ := m.g.Eval(x) // the search passes inputs of the right size
	return y
}

func (m graphModel) traced(x []float64) ([]float64, func([]float64) []float64) {
	vals, _ := m.g.EvalAll(x)
	return vals[len(vals)-1], func(v []float64) []float64 { return graphBackward(m.g, vals, v) }
}

func (m graphModel) quantisers() (bool, *nn.Quantiser) {
	quantised := false
	var in *nn.Quantiser
	inputOnlyQuantised := true
	for _, n := range m.g.Nodes {
		q, ok := n.Op.(*nn.Quantise)
		quantised = quantised || ok
		if !slices.Contains(n.Inputs, 0) {
			continue
		}
		switch {
		case !ok:
			inputOnlyQuantised = false
		case in == nil:
			in = q.Q
		case !in.Equal(q.Q):
			inputOnlyQuantised = false
		}
	}
	if !inputOnlyQuantised {
		in = nil
	}
	return quantised, in
}

// graphBackward returns J^T v for the Jacobian J of g at the point whose
// values are vals (nn.Graph.EvalAll): the derivatives of forward and
// backward, through a quantiser straight through where it does not
// saturate (0 where it does), through a max pool to the first largest
// input of each window, through a product by the product rule.
func graphBackward(g *nn.Graph, vals [][]float64, v []float64) []float64 {
	grad := make([][]float64, len(vals))
	grad[len(vals)-1] = append([]float64(nil), v...)
	acc := func(val int, d []float64) {
		if grad[val] == nil {
			grad[val] = make([]float64, len(vals[val]))
		}
		for i, x := range d {
			grad[val][i] += x
		}
	}
	for k := len(g.Nodes) - 1; k >= 0; k-- {
		n, gout := g.Nodes[k], grad[k+1]
		if gout == nil {
			continue // the output does not depend on this node
		}
		x := vals[n.Inputs[0]]
		switch op := n.Op.(type) {
		case *nn.Affine:
			d := make([]float64, len(x))
			op.M.ApplyTransposed(d, gout)
			acc(n.Inputs[0], d)
		case nn.Act:
			d := make([]float64, len(x))
			for i, s := range x {
				d[i] = gout[i] * slope(op.Act, s)
			}
			acc(n.Inputs[0], d)
		case *nn.Quantise:
			d := make([]float64, len(x))
			for i, s := range x {
				if !saturates(op.Q, i, s) {
					d[i] = gout[i]
				}
			}
			acc(n.Inputs[0], d)
		case nn.Add:
			acc(n.Inputs[0], gout)
			d := append([]float64(nil), gout...)
			if op.Negate {
				for i := range d {
					d[i] = -d[i]
				}
			}
			acc(n.Inputs[1], d)
		case nn.Unary:
			d := make([]float64, len(x))
			for i, s := range x {
				if gout[i] != 0 {
					d[i] = gout[i] * op.Deriv(s)
				}
			}
			acc(n.Inputs[0], d)
		case nn.Mul:
			y := vals[n.Inputs[1]]
			da, db := make([]float64, len(x)), make([]float64, len(x))
			for i, g := range gout {
				da[i], db[i] = g*y[i], g*x[i]
			}
			acc(n.Inputs[0], da)
			acc(n.Inputs[1], db)
		case nn.Concat:
			off := 0
			for _, in := range n.Inputs {
				size := len(vals[in])
				acc(in, gout[off:off+size])
				off += size
			}
		case *nn.MaxPool:
			d := make([]float64, len(x))
			for o, win := range op.Windows() {
				best := win[0]
				for _, j := range win[1:] {
					if x[j] > x[best] {
						best = j
					}
				}
				d[best] += gout[o]
			}
			acc(n.Inputs[0], d)
		}
	}
	if grad[0] == nil {
		return make([]float64, len(vals[0]))
	}
	return grad[0]
}
