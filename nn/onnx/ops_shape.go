package onnx

import "fmt"

// The shape operators change how the data is laid out but not the values
// of a sample or their order, so they only update b.shape.

func opIdentity(b *builder, n *node, ops operands) error { return nil }

func opFlatten(b *builder, n *node, ops operands) error {
	s, err := flatten(b.shape, n.intAttr("axis", 1))
	if err != nil {
		return err
	}
	b.shape = s
	return nil
}

// opReshape translates Reshape with the target shape from the constant
// input 1 (opset >= 5) or the shape attribute (opset 1).
func opReshape(b *builder, n *node, ops operands) error {
	if ops.data != 0 {
		return fmt.Errorf("the target shape is a computed tensor: %w", ErrNotConstant)
	}
	target, err := ops.constInts(1)
	if err != nil {
		return err
	}
	if target == nil {
		a := n.attr("shape")
		if a == nil {
			return fmt.Errorf("no target shape: %w", ErrMalformed)
		}
		target = a.ints
	}
	s, err := reshape(b.shape, target, n.intAttr("allowzero", 0) != 0)
	if err != nil {
		return err
	}
	if err := s.check(b.bud.left); err != nil {
		return err
	}
	b.shape = s
	return nil
}

// axesOf returns the axes of Squeeze/Unsqueeze: the constant input 1
// (opset >= 13) or the axes attribute; nil if neither is given.
func axesOf(n *node, ops operands) ([]int64, error) {
	if ops.data != 0 {
		return nil, fmt.Errorf("the axes are a computed tensor: %w", ErrNotConstant)
	}
	axes, err := ops.constInts(1)
	if err != nil || axes != nil {
		return axes, err
	}
	if a := n.attr("axes"); a != nil {
		return a.ints, nil
	}
	return nil, nil
}

func opSqueeze(b *builder, n *node, ops operands) error {
	axes, err := axesOf(n, ops)
	if err != nil {
		return err
	}
	s, err := squeeze(b.shape, axes)
	if err != nil {
		return err
	}
	b.shape = s
	return nil
}

func opUnsqueeze(b *builder, n *node, ops operands) error {
	axes, err := axesOf(n, ops)
	if err != nil {
		return err
	}
	if axes == nil {
		return fmt.Errorf("no axes: %w", ErrMalformed)
	}
	s, err := unsqueeze(b.shape, axes)
	if err != nil {
		return err
	}
	b.shape = s
	return nil
}

// constantNode returns the value of a Constant node.
func constantNode(n *node) (*constant, error) {
	if len(n.attrs) != 1 {
		return nil, fmt.Errorf("Constant with %d attributes, want 1: %w", len(n.attrs), ErrMalformed)
	}
	a := n.attrs[0]
	switch a.name {
	case "value":
		if a.t == nil {
			return nil, fmt.Errorf("Constant value is not a tensor: %w", ErrMalformed)
		}
		return a.t.toConstant()
	case "value_float":
		return &constant{typ: Float, vals: []float64{float64(a.f)}}, nil
	case "value_floats":
		v := make([]float64, len(a.floats))
		for i, f := range a.floats {
			v[i] = float64(f)
		}
		return &constant{dims: []int64{int64(len(v))}, typ: Float, vals: v}, nil
	case "value_int":
		return &constant{typ: Int64, ints: []int64{a.i}}, nil
	case "value_ints":
		return &constant{dims: []int64{int64(len(a.ints))}, typ: Int64, ints: a.ints}, nil
	}
	return nil, fmt.Errorf("Constant attribute %q: %w", a.name, ErrUnsupportedOp)
}
