package onnx

import (
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// intParams returns how the Gemm's weight and bias are stored as integers
// (see intParams), nil if they are not or the data, at position data, is
// not the Gemm's A.
func (g *gemmMap) intParams(data int) *nn.IntParams {
	if data != 0 {
		return nil
	}
	out := int64(1)
	if g.rowsOut {
		out = 0
	}
	return intParams(g.w, g.bias, out, g.alpha, g.beta)
}

// gemmMap is the affine map of a Gemm node on data of shape x, with the
// output shape and the constants it came from.
type gemmMap struct {
	a           *affine
	out         shape
	w, bias     *constant
	rowsOut     bool
	alpha, beta float64
}

// gemm returns the affine map of a Gemm node on data of shape x.
func gemm(x shape, n *node, ops operands, bud *budget) (*gemmMap, error) {
	if len(ops.consts) < 2 {
		return nil, fmt.Errorf("%d inputs, want 2 or 3: %w", len(ops.consts), ErrMalformed)
	}
	if x.rank() != 2 {
		return nil, fmt.Errorf("input of shape %v, Gemm needs 2-D: %w", x, ErrShape)
	}
	alpha, beta := n.floatAttr("alpha", 1), n.floatAttr("beta", 1)
	transA, transB := n.intAttr("transA", 0) != 0, n.intAttr("transB", 0) != 0
	var w *constant
	var wv []float64
	var err error
	switch ops.data {
	case 0:
		w, wv, err = ops.constFloats(1)
	case 1:
		w, wv, err = ops.constFloats(0)
	default:
		return nil, fmt.Errorf("the bias C is a computed tensor: %w", ErrNotConstant)
	}
	if err == nil {
		err = finite(wv)
	}
	if err != nil {
		return nil, err
	}
	if len(w.dims) != 2 {
		return nil, fmt.Errorf("weight of shape %v, Gemm needs 2-D: %w", w.dims, ErrShape)
	}
	// M[j,i] maps input i of a sample to output j. With the data as A,
	// the samples are the rows of A' and the weight B' is k x m; with the
	// data as B, the samples are the columns of B' and the weight A' is
	// m x k. rowsOut: the weight is stored m x k (its rows are outputs).
	var axis, pos int
	var rowsOut bool
	if ops.data == 0 {
		axis, pos, rowsOut = 1, 1, transB
		if transA {
			axis = 0
		}
	} else {
		axis, pos, rowsOut = 0, 0, !transA
		if transB {
			axis = 1
		}
	}
	r, c := w.dims[0], w.dims[1]
	k, m := r, c
	at := func(j, i int64) float64 { return alpha * wv[i*c+j] }
	if rowsOut {
		m, k = r, c
		at = func(j, i int64) float64 { return alpha * wv[j*c+i] }
	}
	a, out, err := contracted(x, axis, k, m, pos, at, bud)
	if err != nil {
		return nil, err
	}
	g := &gemmMap{a: a, out: out, w: w, rowsOut: rowsOut, alpha: alpha, beta: beta}
	if len(ops.consts) > 2 && ops.consts[2] != nil {
		g.bias = ops.consts[2]
		if err := addBias(out, a, g.bias, beta); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// addBias adds beta*C, broadcast (unidirectionally) to the data shape, to
// the shift of a.
func addBias(x shape, a *affine, c *constant, beta float64) error {
	v, err := c.floats()
	if err == nil {
		err = finite(v)
	}
	if err != nil {
		return fmt.Errorf("bias: %w", err)
	}
	out, xi, ci, err := broadcastConst(x, c.dims, x.size())
	if err != nil {
		return fmt.Errorf("bias: %w", err)
	}
	if !slices.Equal(out.dims, x.dims) {
		return fmt.Errorf("bias of shape %v does not broadcast to the output %v: %w", c.dims, x, ErrShape)
	}
	for o, j := range ci {
		a.b[xi[o]] = beta * v[j] // xi is one-to-one: the bias does not broadcast the data
	}
	return nil
}

// contracted returns the affine map of a contraction of data of shape x
// along axis (of size k) to a new axis of size m at pos (see contract),
// with matrix entries at(j, i), and the result's shape.
func contracted(x shape, axis int, k, m int64, pos int, at func(j, i int64) float64, bud *budget) (*affine, shape, error) {
	if axis >= x.rank() || x.dims[axis] != k {
		return nil, shape{}, fmt.Errorf("input of shape %v does not fit a weight with %d inputs: %w", x, k, ErrShape)
	}
	if m < 1 {
		return nil, shape{}, fmt.Errorf("weight with %d outputs: %w", m, ErrShape)
	}
	c, err := contract(x, axis, m, pos, bud.left)
	if err != nil {
		return nil, shape{}, err
	}
	a := &affine{in: x.size(), out: c.out.size()}
	if a.w, err = bud.dense(a.out, a.in); err != nil {
		return nil, shape{}, err
	}
	if a.b, err = bud.vec(a.out); err != nil {
		return nil, shape{}, err
	}
	for q, ib := range c.inBase {
		ob := c.outBase[q]
		for j := range m {
			row := a.w.RawRowView(ob + int(j)*c.outStride)
			for i := range k {
				row[ib+int(i)*c.inStride] = at(j, i)
			}
		}
	}
	return a, c.out, nil
}

// matmul returns the affine map of a MatMul node on data of shape x, and
// the output shape.
func matmul(x shape, ops operands, bud *budget) (*affine, shape, error) {
	wi, err := ops.other()
	if err != nil {
		return nil, shape{}, err
	}
	w, wv, err := ops.constFloats(wi)
	if err == nil {
		err = finite(wv)
	}
	if err != nil {
		return nil, shape{}, err
	}
	rw := len(w.dims)
	if rw == 0 {
		return nil, shape{}, fmt.Errorf("MatMul with a scalar: %w", ErrShape)
	}
	for _, d := range w.dims[:max(rw-2, 0)] {
		if d != 1 {
			return nil, shape{}, fmt.Errorf("weight of shape %v is a batch of matrices: %w", w.dims, ErrUnsupportedOp)
		}
	}
	if rw > 2 {
		if x.rank() == 1 {
			return nil, shape{}, fmt.Errorf("1-D input with a weight of shape %v: %w", w.dims, ErrUnsupportedOp)
		}
		for x.rank() < rw {
			x, _ = unsqueeze(x, []int64{0})
		}
	}
	rx := x.rank()
	vector := rw == 1 // the contracted axis disappears
	var axis int
	var k, m int64
	var at func(j, i int64) float64
	if wi == 1 { // X W: W is k x m (or k)
		axis = rx - 1
		k, m = w.dims[max(rw-2, 0)], 1
		if !vector {
			m = w.dims[rw-1]
		}
		at = func(j, i int64) float64 { return wv[i*m+j] }
	} else { // W X: W is m x k (or k)
		axis = max(rx-2, 0)
		k, m = w.dims[rw-1], 1
		if !vector {
			m = w.dims[rw-2]
		}
		at = func(j, i int64) float64 { return wv[j*k+i] }
	}
	a, x, err := contracted(x, axis, k, m, axis, at, bud)
	if err != nil {
		return nil, shape{}, err
	}
	if vector {
		x, err = squeeze(x, []int64{int64(axis)})
		if err != nil {
			return nil, shape{}, err
		}
	}
	return a, x, nil
}

// arith returns the elementwise affine map of an Add, Sub, Mul or Div node
// with a constant on data of shape x, and the output shape.
func arith(x shape, n *node, ops operands, bud *budget) (*affine, shape, error) {
	ci, err := ops.other()
	if err != nil {
		return nil, shape{}, err
	}
	c, v, err := ops.constFloats(ci)
	if err == nil {
		err = finite(v)
	}
	if err != nil {
		return nil, shape{}, err
	}
	dataFirst := ops.data == 0
	if n.opType == "Div" && !dataFirst {
		return nil, shape{}, fmt.Errorf("division by the data is not affine: %w", ErrUnsupportedOp)
	}
	in := x.size()
	out, xi, cidx, err := broadcastConst(x, c.dims, bud.left)
	if err != nil {
		return nil, shape{}, err
	}
	scale, err := bud.vec(len(cidx))
	if err != nil {
		return nil, shape{}, err
	}
	shift, err := bud.vec(len(cidx))
	if err != nil {
		return nil, shape{}, err
	}
	for o, j := range cidx {
		scale[o] = 1
		switch n.opType {
		case "Add":
			shift[o] = v[j]
		case "Sub":
			if dataFirst {
				shift[o] = -v[j]
			} else {
				scale[o], shift[o] = -1, v[j]
			}
		case "Mul":
			scale[o] = v[j]
		case "Div":
			if v[j] == 0 || math.IsNaN(v[j]) {
				return nil, shape{}, fmt.Errorf("division by %v: %w", v[j], nn.ErrNotFinite)
			}
			scale[o] = 1 / v[j]
		}
	}
	a, err := elementwise(in, xi, scale, shift, bud)
	if err != nil {
		return nil, shape{}, err
	}
	return a, out, nil
}
