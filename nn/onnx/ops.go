package onnx

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/nn"
)

// opFunc changes the shape b.shape of a tensor as a shape operator does
// (ops_shape.go); the tensor is ops.consts[ops.data] == nil (a computed
// tensor) or a constant.
type opFunc func(b *builder, n *node, ops operands) error

// lookupOp returns the shape operator of each op type that is one (no
// node: values are stored flat, only the shape changes), or nil.
func lookupOp(opType string) opFunc {
	switch opType {
	case "Identity":
		return opIdentity
	case "Flatten":
		return opFlatten
	case "Reshape":
		return opReshape
	case "Squeeze":
		return opSqueeze
	case "Unsqueeze":
		return opUnsqueeze
	}
	return nil
}

// attr returns the attribute called name, or nil.
func (n *node) attr(name string) *attribute {
	for _, a := range n.attrs {
		if a.name == name {
			return a
		}
	}
	return nil
}

// floatAttr returns a float attribute widened to float64, or def.
func (n *node) floatAttr(name string, def float64) float64 {
	if a := n.attr(name); a != nil {
		return float64(a.f)
	}
	return def
}

// intAttr returns an int attribute, or def.
func (n *node) intAttr(name string, def int64) int64 {
	if a := n.attr(name); a != nil {
		return a.i
	}
	return def
}

// finite reports a NaN or infinite weight.
func finite(v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("constant value %d is %v: %w", i, x, nn.ErrNotFinite)
		}
	}
	return nil
}

// constFloats returns the values of the constant input i, which must be
// present.
func (ops operands) constFloats(i int) (*constant, []float64, error) {
	if i >= len(ops.consts) || (ops.consts[i] == nil && i != ops.data) {
		return nil, nil, fmt.Errorf("input %d is missing: %w", i, ErrMalformed)
	}
	if i == ops.data {
		return nil, nil, fmt.Errorf("input %d must be a constant but is a computed tensor: %w", i, ErrNotConstant)
	}
	v, err := ops.consts[i].floats()
	return ops.consts[i], v, err
}

// constInts returns the values of the integer constant input i, or nil if
// the optional input is absent.
func (ops operands) constInts(i int) ([]int64, error) {
	if i >= len(ops.consts) {
		return nil, nil
	}
	if i == ops.data {
		return nil, fmt.Errorf("input %d must be a constant but is a computed tensor: %w", i, ErrNotConstant)
	}
	if ops.consts[i] == nil {
		return nil, nil
	}
	return ops.consts[i].integers()
}

// other returns the position of the single constant operand of a binary node.
func (ops operands) other() (int, error) {
	if len(ops.consts) != 2 {
		return 0, fmt.Errorf("%d inputs, want 2: %w", len(ops.consts), ErrMalformed)
	}
	return 1 - ops.data, nil
}
