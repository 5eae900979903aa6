package onnx

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
)

// lookupGraphOp returns the translation of each op type the graph reader
// supports on computed tensors (default domain), or nil. Constants are
// folded before (graphfold.go).
func lookupGraphOp(opType string) graphOpFunc {
	switch opType {
	case "Gemm", "MatMul", "BatchNormalization":
		return gopAffine
	case "Add", "Sub", "Mul", "Div":
		return gopArith
	case "Conv":
		return gopConv
	case "Relu", "Tanh", "Sigmoid", "LeakyRelu", "Elu":
		return gopActivation
	case "PRelu":
		return gopPRelu
	case "HardSigmoid":
		return gopHardSigmoid
	case "Clip", "Max", "Min":
		return gopClip
	case "MaxPool", "AveragePool", "GlobalAveragePool":
		return gopPool
	case "Concat":
		return gopConcat
	case "Transpose":
		return gopTranspose
	case "Pad":
		return gopPad
	case "Slice":
		return gopSlice
	case "Flatten", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Dropout":
		return gopReshape
	case "Shape":
		return gopShape
	case "QuantizeLinear":
		return gopQuantize
	case "DequantizeLinear":
		return gopDequantize
	case "Cast":
		return gopCast
	case "Exp", "Sqrt", "Reciprocal", "Erf", "Neg":
		return gopUnaryFn
	case "Pow":
		return gopPow
	case "ReduceMean", "ReduceSum":
		return gopReduceMean
	case "Softmax":
		return gopSoftmax
	case "Split":
		return gopSplit
	case "Gather":
		return gopGather
	case "LayerNormalization":
		return gopLayerNorm
	}
	return nil
}

// affineOp returns the graph operation of the map a.
func affineOp(a *affine) *nn.Affine {
	if a.w != nil {
		return &nn.Affine{M: nn.DenseMap{W: a.w}, B: a.b}
	}
	return &nn.Affine{M: &nn.Scale{S: a.diag}, B: a.b}
}

// gopAffine translates Gemm, MatMul with a constant, and
// BatchNormalization: one affine node, a row map (nn.RowMap) for MatMul
// of an activation of rank > 1 by a constant matrix.
func gopAffine(b *graphBuilder, n *node, in []gin) error {
	if ts, all := computed(in); len(ts) == 2 && all && n.opType == "MatMul" {
		return b.matmul2(n, ts[0], ts[1])
	}
	x, ops, err := unary(n, in, n.opType != "BatchNormalization")
	if err != nil {
		return err
	}
	var a *affine
	var scheme *nn.IntParams
	out := x.s
	switch n.opType {
	case "Gemm":
		var g *gemmMap
		if g, err = gemm(x.s, n, ops, b.bud); err == nil {
			a, out = g.a, g.out
			scheme = g.intParams(ops.data)
		}
	case "MatMul":
		a, out, err = matmul(x.s, ops, b.bud)
	default:
		a, err = batchNorm(x.s, n, ops, b.bud)
	}
	if err != nil {
		return err
	}
	op := affineOp(a)
	op.Int = scheme
	if n.opType == "MatMul" && a.w != nil && x.s.rank() > 1 {
		if k := int(x.s.dims[x.s.rank()-1]); k > 0 {
			if r, ok := nn.BlockDiagonal(a.w, a.in/k); ok {
				op.M = r // the same matrix on every row: a token-wise map
			}
		}
	}
	b.set(n, b.emit(n, op, out, x.v))
	return nil
}

// gopArith translates Add, Sub, Mul and Div with a constant (an
// elementwise affine node), and Add and Sub of two computed tensors of the
// same shape (a residual join).
func gopArith(b *graphBuilder, n *node, in []gin) error {
	if ts, all := computed(in); len(ts) == 2 && all {
		if n.opType == "Mul" || n.opType == "Div" || !sameSample(ts[0].s, ts[1].s) {
			return b.binary(n, ts[0], ts[1])
		}
		if !sameSample(ts[0].s, ts[1].s) || ts[0].s.batch != ts[1].s.batch {
			return fmt.Errorf("%s of tensors of shapes %v and %v (broadcasting computed tensors is not read): %w",
				n.opType, ts[0].s, ts[1].s, ErrUnsupportedOp)
		}
		b.set(n, b.emit(n, nn.Add{Negate: n.opType == "Sub"}, ts[0].s, ts[0].v, ts[1].v))
		return nil
	}
	x, ops, err := unary(n, in, true)
	if err != nil {
		return err
	}
	a, out, err := arith(x.s, n, ops, b.bud)
	if err != nil {
		return err
	}
	b.set(n, b.emit(n, affineOp(a), out, x.v))
	return nil
}

// gopConv translates Conv: a structured convolution with its bias per
// output value.
func gopConv(b *graphBuilder, n *node, in []gin) error {
	x, ops, err := unary(n, in, false)
	if err != nil {
		return err
	}
	c, bias, err := convOf(x.s, n, ops)
	if err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%w: %w", err, ErrShape)
	}
	if err := b.bud.take(c.Out()); err != nil {
		return err
	}
	var full []float64
	if bias != nil {
		full = make([]float64, c.Out())
		plane := c.OutH * c.OutW
		for i := range full {
			full[i] = bias[i/plane]
		}
	}
	out := withSpatial(x.s, c.OutC, [2]int{c.OutH, c.OutW})
	var bc *constant
	if len(ops.consts) > 2 {
		bc = ops.consts[2]
	}
	// The integer scheme of dequantised int8 weights (per tensor or per
	// output channel, axis 0) and int32 biases, for the writer.
	scheme := intParams(ops.consts[1], bc, 0, 1, 1)
	b.set(n, b.emit(n, &nn.Affine{M: c, B: full, Int: scheme}, out, x.v))
	return nil
}
