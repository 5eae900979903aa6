package onnx

import (
	"fmt"
	"slices"
)

// Constant folding in the graph reader: the nodes that read only constants
// (dequantised weights, and the shape arithmetic that exporters write for
// Flatten and Reshape: Shape, Gather, Unsqueeze, Concat) are evaluated when
// the file is read.

// batchDim stands for the symbolic batch size in a folded Shape; Reshape
// reads it as the batch axis.
const batchDim = -1 << 40

// fold returns the value of node n, all of whose inputs are constants.
func (b *graphBuilder) fold(n *node, in []gin) (*constant, error) {
	ops := operands{data: -1, consts: make([]*constant, len(in))}
	for i, g := range in {
		ops.consts[i] = g.c
	}
	if f := folder(n.opType); f != nil {
		return f(b.builder, n, ops)
	}
	if len(in) == 0 || in[0].c == nil {
		return nil, fmt.Errorf("%s of no constant: %w", n.opType, ErrMalformed)
	}
	x := in[0].c
	switch n.opType {
	case "Identity":
		return x, nil
	case "Gather":
		return b.foldGather(n, ops)
	case "Slice":
		return b.foldSlice(n, ops)
	case "Concat":
		return foldConcat(n, ops)
	case "Unsqueeze", "Squeeze", "Reshape", "Flatten":
		b.shape, ops.data = shape{dims: x.dims, batch: -1}, 0
		if err := lookupOp(n.opType)(b.builder, n, ops); err != nil {
			return nil, err
		}
		return &constant{dims: b.shape.dims, typ: x.typ, vals: x.vals, ints: x.ints}, nil
	}
	return nil, fmt.Errorf("operator %q on constants (not folded): %w", n.opType, ErrUnsupportedOp)
}

// foldGather evaluates Gather of constants along axis.
func (b *graphBuilder) foldGather(n *node, ops operands) (*constant, error) {
	x := ops.consts[0]
	if len(ops.consts) != 2 || ops.consts[1] == nil {
		return nil, fmt.Errorf("%d inputs, want 2: %w", len(ops.consts), ErrMalformed)
	}
	idx, err := ops.consts[1].integers()
	if err != nil {
		return nil, err
	}
	axis, err := normAxis(n.intAttr("axis", 0), len(x.dims))
	if err != nil {
		return nil, err
	}
	d := x.dims[axis]
	inner := int(prod(x.dims[axis+1:]))
	outer := int(prod(x.dims[:axis]))
	dims := slices.Concat(x.dims[:axis], ops.consts[1].dims, x.dims[axis+1:])
	if err := b.bud.take(outer * len(idx) * inner); err != nil {
		return nil, err
	}
	out := &constant{dims: dims, typ: x.typ}
	for o := range outer {
		for _, k := range idx {
			if k < 0 {
				k += d
			}
			if k < 0 || k >= d {
				return nil, fmt.Errorf("Gather index %d of an axis of %d: %w", k, d, ErrShape)
			}
			from := (o*int(d) + int(k)) * inner
			if x.vals != nil {
				out.vals = append(out.vals, x.vals[from:from+inner]...)
			} else {
				out.ints = append(out.ints, x.ints[from:from+inner]...)
			}
		}
	}
	return out, nil
}

// foldConcat evaluates Concat of constants of one kind (floats or
// integers).
func foldConcat(n *node, ops operands) (*constant, error) {
	x := ops.consts[0]
	axis, err := normAxis(n.intAttr("axis", 0), len(x.dims))
	if err != nil {
		return nil, err
	}
	out := &constant{dims: slices.Clone(x.dims), typ: x.typ}
	out.dims[axis] = 0
	for _, c := range ops.consts {
		d := slices.Clone(c.dims)
		if len(d) != len(x.dims) || isFloat(c.typ) != isFloat(x.typ) {
			return nil, fmt.Errorf("Concat of constants of shapes %v and %v: %w", x.dims, c.dims, ErrShape)
		}
		d[axis] = x.dims[axis]
		if !slices.Equal(d, x.dims) {
			return nil, fmt.Errorf("Concat of constants of shapes %v and %v: %w", x.dims, c.dims, ErrShape)
		}
		out.dims[axis] += c.dims[axis]
	}
	outer := int(prod(x.dims[:axis]))
	for o := range outer {
		for _, c := range ops.consts {
			n := int(prod(c.dims[axis:]))
			if c.vals != nil {
				out.vals = append(out.vals, c.vals[o*n:(o+1)*n]...)
			} else {
				out.ints = append(out.ints, c.ints[o*n:(o+1)*n]...)
			}
		}
	}
	return out, nil
}
