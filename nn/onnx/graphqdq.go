package onnx

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
)

// QDQ int8 models in the graph reader: a QuantizeLinear of a computed
// tensor gives integers (a qval), which nodes may only cast to their own
// type (a no-op) and dequantise with the same scale and zero point; the
// first such DequantizeLinear makes one nn.Quantise node, which every
// other reads too (PyTorch's residual exports and ONNX Runtime's layout
// read a quantised tensor twice). Anything else reading the integers is an
// error naming the reader and the QuantizeLinear.

// gopQuantize translates QuantizeLinear of a computed tensor.
func gopQuantize(b *graphBuilder, n *node, in []gin) error {
	x, ops, err := unary(n, in, false)
	if err != nil {
		return err
	}
	if n.intAttr("saturate", 1) != 1 {
		return fmt.Errorf("QuantizeLinear with saturate = 0: %w", ErrUnsupportedOp)
	}
	q, typ, err := quantParams(x.s, n, ops)
	if err != nil {
		return err
	}
	name := n.name
	if name == "" {
		name = n.outputs[0]
	}
	b.quants[n.outputs[0]] = &qval{src: x, q: q, typ: typ, name: name, out: -1}
	return nil
}

// gopDequantize translates DequantizeLinear of the integers of a
// QuantizeLinear with the same parameters.
func gopDequantize(b *graphBuilder, n *node, in []gin) error {
	q := in[0].q
	if q == nil {
		return fmt.Errorf("DequantizeLinear of floating-point data: %w", ErrUnsupportedOp)
	}
	ops := operands{data: 0, consts: make([]*constant, len(in))}
	for i, g := range in[1:] {
		if g.t != nil || g.q != nil {
			return fmt.Errorf("input %d is computed, want a constant: %w", i+1, ErrNotConstant)
		}
		ops.consts[i+1] = g.c
	}
	p, typ, err := quantParams(q.src.s, n, ops)
	if err != nil {
		return err
	}
	if typ != q.typ || !p.Equal(q.q) {
		return fmt.Errorf("DequantizeLinear with other parameters (%v) than QuantizeLinear %q (%v): %w",
			p, q.name, q.q, ErrUnsupportedOp)
	}
	if q.out < 0 {
		q.out = b.emit(n, &nn.Quantise{Q: q.q}, q.src.s, q.src.v).v
	}
	b.set(n, tval{v: q.out, s: q.src.s})
	return nil
}

// gopCast translates Cast of quantised integers to their own type and of
// a computed tensor to FLOAT or DOUBLE: no-ops (evaluation is in float64).
func gopCast(b *graphBuilder, n *node, in []gin) error {
	to := DataType(n.intAttr("to", 0))
	if len(in) != 1 {
		return fmt.Errorf("%d inputs, want 1: %w", len(in), ErrMalformed)
	}
	switch {
	case in[0].q != nil && to == in[0].q.typ:
		b.quants[n.outputs[0]] = in[0].q
	case in[0].t != nil && (to == Float || to == Double):
		b.set(n, *in[0].t)
	default:
		return fmt.Errorf("Cast to %v (only no-op casts of computed tensors are read): %w", to, ErrUnsupportedOp)
	}
	return nil
}
