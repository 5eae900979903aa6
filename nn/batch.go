package nn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// EvalBatch evaluates n on every row of x (one input per row) and returns
// the outputs, one row each. Row i of the result equals Eval of row i of x
// bit for bit: the layers use the same summation order.
//
// It returns an error wrapping ErrDimension when x has not n.InputSize()
// columns.
func (n *Network) EvalBatch(x *mat.Dense) (*mat.Dense, error) {
	rows, cols := x.Dims()
	if cols != n.InputSize() {
		return nil, fmt.Errorf("nn: batch inputs have %d columns, network takes %d: %w", cols, n.InputSize(), ErrDimension)
	}
	out := mat.NewDense(rows, n.OutputSize(), nil)
	width := 0
	for _, l := range n.Layers {
		width = max(width, l.Out())
	}
	h, next := make([]float64, 0, max(width, cols)), make([]float64, 0, width)
	for i := range rows {
		h = append(h[:0], x.RawRowView(i)...)
		n.Input.applyAll(h)
		for _, l := range n.Layers {
			next = l.applyTo(next[:0], h)
			h, next = next, h
		}
		out.SetRow(i, h)
	}
	return out, nil
}
