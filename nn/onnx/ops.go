package onnx

import (
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// opFunc translates one node on the chain. The data input is
// ops.consts[ops.data] == nil; b.shape is its shape, and the function
// updates b.shape to the shape of the node's output.
type opFunc func(b *builder, n *node, ops operands) error

// lookupOp returns the translation of each supported op type (default
// domain), or nil. Constant is handled by the builder itself. A switch
// rather than a map, so that the table costs nothing at the start of a
// program that reads no model.
func lookupOp(opType string) opFunc {
	switch opType {
	case "Gemm":
		return opGemm
	case "MatMul":
		return opMatMul
	case "Add", "Sub", "Mul", "Div":
		return opArith
	case "Max", "Min":
		return opMinMax
	case "Clip":
		return opClip
	case "Relu":
		return opRelu
	case "Tanh":
		return opActivation(nn.Tanh)
	case "Sigmoid":
		return opActivation(nn.Sigmoid)
	case "LeakyRelu":
		return opActivation(nn.LeakyReLU)
	case "Elu":
		return opActivation(nn.ELU)
	case "PRelu":
		return opPRelu
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
	case "Conv":
		return opConv
	case "BatchNormalization":
		return opBatchNorm
	case "AveragePool":
		return opAveragePool
	case "GlobalAveragePool":
		return opGlobalAveragePool
	// QDQ (ops_qdq.go)
	case "QuantizeLinear":
		return opQuantize
	case "DequantizeLinear":
		return opDequantize
	case "Cast":
		return opCast
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
		return nil, nil, fmt.Errorf("input %d must be a constant but is the chain's data: %w", i, ErrNotConstant)
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
		return nil, fmt.Errorf("input %d must be a constant but is the chain's data: %w", i, ErrNotConstant)
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

// opActivation returns the translation of an activation node of kind k.
func opActivation(k nn.ActivationKind) opFunc {
	return func(b *builder, n *node, ops operands) error {
		if len(ops.consts) != 1 {
			return fmt.Errorf("%d inputs, want 1: %w", len(ops.consts), ErrMalformed)
		}
		act := nn.Activation{Kind: k}
		switch k {
		case nn.LeakyReLU:
			act.Alpha = n.floatAttr("alpha", float64(float32(0.01))) // attributes are float32
		case nn.ELU:
			act.Alpha = n.floatAttr("alpha", 1)
		}
		return b.activate(act)
	}
}

// opRelu translates Relu as the clipping max(x, 0), so that it merges with
// neighbouring Max/Min/Clip nodes (Relu then Min(6) is HardTanh(0, 6)).
func opRelu(b *builder, n *node, ops operands) error {
	if len(ops.consts) != 1 {
		return fmt.Errorf("%d inputs, want 1: %w", len(ops.consts), ErrMalformed)
	}
	b.clipMax(make([]float64, b.shape.size()))
	return nil
}

// opPRelu translates PRelu with one slope for every value (a LeakyReLU).
func opPRelu(b *builder, n *node, ops operands) error {
	if ops.data != 0 {
		return fmt.Errorf("PRelu of a constant: %w", ErrNotConstant)
	}
	_, slope, err := ops.constFloats(1)
	if err == nil {
		err = finite(slope)
	}
	if err != nil {
		return err
	}
	for _, s := range slope {
		if s != slope[0] {
			return fmt.Errorf("PRelu with per-channel slopes: %w", ErrUnsupportedOp)
		}
	}
	if len(slope) == 0 {
		return fmt.Errorf("PRelu with an empty slope: %w", ErrShape)
	}
	return b.activate(nn.Activation{Kind: nn.LeakyReLU, Alpha: slope[0]})
}

// opMinMax translates Max and Min of the data with constants: clipping.
func opMinMax(b *builder, n *node, ops operands) error {
	for i, c := range ops.consts {
		if i == ops.data || c == nil {
			continue
		}
		v, err := c.floats()
		if err != nil {
			return err
		}
		for _, x := range v {
			if math.IsNaN(x) {
				return fmt.Errorf("%s with NaN: %w", n.opType, nn.ErrBounds)
			}
		}
		bound, err := b.broadcastTo(c.dims, v)
		if err != nil {
			return err
		}
		if n.opType == "Max" {
			b.clipMax(bound)
		} else {
			b.clipMin(bound)
		}
	}
	return nil
}

// broadcastTo broadcasts the constant (dims, v) against the data and
// returns it per value of the sample. If the constant is larger than the
// data, the data is first replicated to the broadcast shape.
func (b *builder) broadcastTo(dims []int64, v []float64) ([]float64, error) {
	out, xi, ci, err := broadcastConst(b.shape, dims, b.bud.left)
	if err != nil {
		return nil, err
	}
	if out.size() != b.shape.size() {
		a, err := elementwise(b.shape.size(), xi, nil, nil, b.bud)
		if err != nil {
			return nil, err
		}
		if err := b.applyAffine(a); err != nil {
			return nil, err
		}
	}
	b.shape = out
	vals, err := b.bud.vec(len(ci))
	if err != nil {
		return nil, err
	}
	for o, j := range ci {
		vals[o] = v[j]
	}
	return vals, nil
}

// opClip translates Clip: bounds from the min/max attributes (opset < 11)
// or from the optional scalar inputs 1 and 2.
func opClip(b *builder, n *node, ops operands) error {
	if ops.data != 0 {
		return fmt.Errorf("Clip of a constant: %w", ErrNotConstant)
	}
	lo, hi := n.floatAttr("min", math.Inf(-1)), n.floatAttr("max", math.Inf(1))
	for i, bound := range []*float64{&lo, &hi} {
		if i+1 >= len(ops.consts) || ops.consts[i+1] == nil {
			continue
		}
		if i+1 == ops.data {
			return fmt.Errorf("Clip bound is the chain's data: %w", ErrNotConstant)
		}
		v, err := ops.consts[i+1].scalar()
		if err != nil {
			return err
		}
		*bound = v
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return fmt.Errorf("Clip bounds [%v, %v]: %w", lo, hi, nn.ErrBounds)
	}
	n1 := b.shape.size()
	b.clipMax(slices.Repeat([]float64{lo}, n1))
	b.clipMin(slices.Repeat([]float64{hi}, n1))
	return nil
}
