package onnx

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/nn"
)

// QDQ int8 models (PyTorch, onnxruntime, TensorRT): the parameters of
// QuantizeLinear and DequantizeLinear (the pair is one nn.Quantiser,
// graphqdq.go), and the folding of DequantizeLinear, Cast and
// ConstantOfShape of constants, so int8 weights and int32 biases become
// the exact float values (k - z) * s, with their integer scheme
// (nn.IntParams) for the writers. The integer-kernel operators
// (QLinearMatMul, QLinearConv, MatMulInteger, ...) are not read.

// isIntegerOp says whether opType is an operator of integer kernels,
// which nnbound does not read (their QDQ export is read).
func isIntegerOp(opType string) bool {
	switch opType {
	case "QLinearMatMul", "QLinearConv", "MatMulInteger", "ConvInteger", "QGemm", "QLinearAdd", "QLinearMul",
		"DynamicQuantizeLinear":
		return true
	}
	return false
}

// quantParams returns the quantiser of a QuantizeLinear or DequantizeLinear
// node: scale (input 1), zero point (input 2, default uint8 0) and the
// element type of the integers. n is the number of values the data has per
// sample, for a per-axis quantiser.
func quantParams(x shape, n *node, ops operands) (*nn.Quantiser, DataType, error) {
	if len(ops.consts) < 2 || len(ops.consts) > 3 {
		return nil, 0, fmt.Errorf("%d inputs, want 2 or 3: %w", len(ops.consts), ErrMalformed)
	}
	_, scale, err := ops.constFloats(1)
	if err != nil {
		return nil, 0, fmt.Errorf("scale: %w", err)
	}
	typ := Uint8
	zero := make([]int64, len(scale))
	if len(ops.consts) == 3 && ops.consts[2] != nil {
		if ops.data == 2 {
			return nil, 0, fmt.Errorf("zero point is a computed tensor: %w", ErrNotConstant)
		}
		typ = ops.consts[2].typ
		if zero, err = ops.consts[2].integers(); err != nil {
			return nil, 0, fmt.Errorf("zero point: %w", err)
		}
	}
	lo, hi, ok := intRange(typ)
	if !ok {
		return nil, 0, fmt.Errorf("quantised type %v (uint8 and int8 are read): %w", typ, ErrDataType)
	}
	if len(zero) != len(scale) {
		return nil, 0, fmt.Errorf("%d scales and %d zero points: %w", len(scale), len(zero), ErrShape)
	}
	q := &nn.Quantiser{Scale: scale, Zero: zero, Lo: lo, Hi: hi}
	if len(scale) > 1 {
		if err := perAxis(x, n.intAttr("axis", 1), len(scale)); err != nil {
			return nil, 0, err
		}
	}
	if err := q.Validate(0); err != nil {
		return nil, 0, fmt.Errorf("%w: %w", err, ErrMalformed)
	}
	return q, typ, nil
}

// perAxis checks that a per-axis quantiser of m values along axis acts on
// the data's one axis of more than one value, of size m.
func perAxis(s shape, axis int64, m int) error {
	if axis < 0 {
		axis += int64(s.rank())
	}
	if axis < 0 || axis >= int64(s.rank()) || int(axis) == s.batch || s.dims[axis] != int64(m) || s.size() != m {
		return fmt.Errorf("per-axis quantiser of %d values on axis %d of data %v: %w", m, axis, s, ErrUnsupportedOp)
	}
	return nil
}

// folder returns the evaluation of the nodes of constants that QDQ files
// hold (the dequantised weights and biases and their zero points), or nil
// for other op types.
func folder(opType string) func(b *builder, n *node, ops operands) (*constant, error) {
	switch opType {
	case "DequantizeLinear":
		return foldDequantize
	case "Cast":
		return foldCast
	case "ConstantOfShape":
		return foldConstantOfShape
	}
	return nil
}

// foldDequantize returns (x - z) * s of integer constants, per axis when
// the scale is a vector.
func foldDequantize(b *builder, n *node, ops operands) (*constant, error) {
	if len(ops.consts) < 2 || len(ops.consts) > 3 || ops.consts[0] == nil {
		return nil, fmt.Errorf("%d inputs, want 2 or 3: %w", len(ops.consts), ErrMalformed)
	}
	x := ops.consts[0]
	ints, err := x.integers()
	if err != nil {
		return nil, err
	}
	_, scale, err := ops.constFloats(1)
	if err != nil {
		return nil, fmt.Errorf("scale: %w", err)
	}
	zero := make([]int64, len(scale))
	if len(ops.consts) == 3 && ops.consts[2] != nil {
		if ops.consts[2].typ != x.typ {
			return nil, fmt.Errorf("zero point of type %v for %v data: %w", ops.consts[2].typ, x.typ, ErrDataType)
		}
		zero = ops.consts[2].ints
	}
	if len(zero) != len(scale) {
		return nil, fmt.Errorf("%d scales and %d zero points: %w", len(scale), len(zero), ErrShape)
	}
	for i, s := range scale {
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("scale %d is %v, want positive and finite: %w", i, s, ErrMalformed)
		}
	}
	stride, err := axisStride(x.dims, n.intAttr("axis", 1), len(scale))
	if err != nil {
		return nil, err
	}
	vals, err := b.bud.vec(len(ints))
	if err != nil {
		return nil, err
	}
	for i, k := range ints {
		c := 0
		if len(scale) > 1 {
			c = (i / stride) % len(scale)
		}
		vals[i] = float64(k-zero[c]) * scale[c]
	}
	lo, hi, ok := intRange(x.typ)
	if !ok {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	axis := n.intAttr("axis", 1)
	if axis < 0 {
		axis += int64(len(x.dims))
	}
	dq := &dequant{q: &nn.Quantiser{Scale: scale, Zero: zero, Lo: lo, Hi: hi}, axis: axis}
	return &constant{dims: x.dims, typ: Double, vals: vals, deq: dq}, nil
}

// dequant records that a constant is DequantizeLinear of integers: its
// quantiser (scales per tensor, or along axis).
type dequant struct {
	q    *nn.Quantiser
	axis int64
}

// intParams returns how a Gemm's weight w and bias c (nil: none) are
// stored as integers, or nil when the weight is not a dequantised constant
// with one scale per tensor or per output (the weight's axis out), or
// alpha or beta is not 1.
func intParams(w, c *constant, out int64, alpha, beta float64) *nn.IntParams {
	if w.deq == nil || alpha != 1 || (w.deq.q.Len() > 1 && w.deq.axis != out) {
		return nil
	}
	p := &nn.IntParams{Weight: w.deq.q}
	if c != nil && c.deq != nil && beta == 1 && len(c.dims) <= 1 {
		p.Bias = c.deq.q
	}
	if c != nil && p.Bias == nil {
		return nil // float biases next to integer weights: not a scheme nnbound writes
	}
	return p
}

// axisStride returns the distance between consecutive indices along axis of
// a tensor of shape dims that has m values along it (1 for m = 1).
func axisStride(dims []int64, axis int64, m int) (int, error) {
	if m == 1 {
		return 1, nil
	}
	if axis < 0 {
		axis += int64(len(dims))
	}
	if axis < 0 || axis >= int64(len(dims)) || dims[axis] != int64(m) {
		return 0, fmt.Errorf("%d scales along axis %d of shape %v: %w", m, axis, dims, ErrShape)
	}
	stride := 1
	for _, d := range dims[axis+1:] {
		stride *= int(d)
	}
	return stride, nil
}

// foldCast converts a constant to another element type: integers to
// integers (range-checked for 8-bit types) or to floats, floats to FLOAT
// (rounded to float32) or DOUBLE.
func foldCast(b *builder, n *node, ops operands) (*constant, error) {
	if len(ops.consts) != 1 || ops.consts[0] == nil {
		return nil, fmt.Errorf("%d inputs, want 1: %w", len(ops.consts), ErrMalformed)
	}
	x, to := ops.consts[0], DataType(n.intAttr("to", 0))
	out := &constant{dims: x.dims, typ: to}
	switch {
	case (to == Float || to == Double) && x.vals != nil:
		out.vals = append([]float64(nil), x.vals...)
	case to == Float || to == Double:
		out.vals = make([]float64, len(x.ints))
		for i, k := range x.ints {
			out.vals[i] = float64(k)
		}
	case (to == Int8 || to == Uint8 || to == Int32 || to == Int64) && x.ints != nil:
		out.ints = x.ints
		if err := checkRange(to, x.ints); err != nil {
			return nil, err
		}
		if to == Int32 {
			for i, k := range x.ints {
				if k != int64(int32(k)) {
					return nil, fmt.Errorf("value %d is %d, outside INT32: %w", i, k, ErrMalformed)
				}
			}
		}
	default:
		return nil, fmt.Errorf("Cast of a %v constant to %v: %w", x.typ, to, ErrUnsupportedOp)
	}
	if to == Float {
		for i, v := range out.vals {
			out.vals[i] = float64(float32(v))
		}
	}
	return out, nil
}

// foldConstantOfShape returns the tensor of the given shape filled with the
// value attribute (default FLOAT 0).
func foldConstantOfShape(b *builder, n *node, ops operands) (*constant, error) {
	if len(ops.consts) != 1 || ops.consts[0] == nil {
		return nil, fmt.Errorf("%d inputs, want 1: %w", len(ops.consts), ErrMalformed)
	}
	dims, err := ops.consts[0].integers()
	if err != nil {
		return nil, err
	}
	fill := &constant{typ: Float, vals: []float64{0}}
	if a := n.attr("value"); a != nil && a.t != nil {
		if fill, err = a.t.toConstant(); err != nil {
			return nil, err
		}
		if fill.size() != 1 {
			return nil, fmt.Errorf("ConstantOfShape value has %d elements, want 1: %w", fill.size(), ErrMalformed)
		}
	}
	size := 1
	for _, d := range dims {
		if d < 0 || (d > 0 && size > b.bud.left/int(d)) {
			return nil, fmt.Errorf("ConstantOfShape of shape %v: %w", dims, ErrTooLarge)
		}
		size *= int(d)
	}
	if err := b.bud.take(size); err != nil {
		return nil, err
	}
	out := &constant{dims: append([]int64(nil), dims...), typ: fill.typ}
	if fill.vals != nil {
		out.vals = make([]float64, size)
		for i := range out.vals {
			out.vals[i] = fill.vals[0]
		}
	} else {
		out.ints = make([]int64, size)
		for i := range out.ints {
			out.ints[i] = fill.ints[0]
		}
	}
	return out, nil
}
