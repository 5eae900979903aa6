package onnx

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
)

// builder translates a chain graph node by node. The network built so far
// is layers, followed by the affine map pend and the elementwise clipping
// clip (either may be nil: none yet).
type builder struct {
	g      *graph
	bud    *budget
	inits  map[string]*tensor   // initializers not yet converted
	consts map[string]*constant // converted initializers and constant node outputs
	data   string               // name of the data value at the end of the chain
	used   map[string]bool      // data values consumed by a node: reading one again is a branch
	reads  map[string][]int     // the nodes reading each value, in order
	fork   string               // in the branch of a residual block: the skip value
	// lowerings describes the nodes lowered to dense maps (Info.Lowered).
	lowerings []string
	shape     shape // shape of the data value
	layers    []nn.Layer
	pend      *affine
	clip      *clipping
	// QDQ state (ops_qdq.go): a QuantizeLinear awaiting its
	// DequantizeLinear, the quantiser of the pending affine map's output,
	// and the network's input quantiser.
	quant   *pendingQuant
	preQ    *nn.Quantiser
	inputQ  *nn.Quantiser
	pendInt *nn.IntParams // how pend's parameters are stored, if as integers
}

// newBuilder returns a builder for g whose allocations are bounded by bud.
func newBuilder(g *graph, bud *budget) *builder {
	b := &builder{g: g, bud: bud, inits: map[string]*tensor{}, consts: map[string]*constant{}, used: map[string]bool{}}
	for _, t := range g.inits {
		b.inits[t.name] = t
	}
	b.reads = map[string][]int{}
	for k, n := range g.nodes {
		for _, in := range n.inputs {
			if r := b.reads[in]; len(r) == 0 || r[len(r)-1] != k {
				b.reads[in] = append(r, k)
			}
		}
	}
	return b
}

// dataInputs returns the graph inputs that have no initializer.
func (b *builder) dataInputs() []Value {
	var in []Value
	for _, v := range b.g.inputs {
		if _, ok := b.inits[v.Name]; !ok {
			in = append(in, v)
		}
	}
	return in
}

// dataInput returns the one data input of the graph.
func (b *builder) dataInput() (Value, error) {
	in := b.dataInputs()
	switch len(in) {
	case 0:
		return Value{}, fmt.Errorf("the graph has no data input: %w", ErrNotChain)
	case 1:
		return in[0], nil
	}
	return Value{}, fmt.Errorf("the graph has %d data inputs (%q, %q, ...); nnbound reads single-input graphs: %w",
		len(in), in[0].Name, in[1].Name, ErrNotChain)
}

// constant returns the constant called name, converting an initializer on
// first use; nil if name is not a constant.
func (b *builder) constant(name string) (*constant, error) {
	if c, ok := b.consts[name]; ok {
		return c, nil
	}
	t, ok := b.inits[name]
	if !ok {
		return nil, nil
	}
	c, err := t.toConstant()
	if err == nil {
		err = b.bud.take(c.size())
	}
	if err != nil {
		return nil, fmt.Errorf("initializer %q: %w", name, err)
	}
	b.consts[name] = c
	return c, nil
}

// run translates the graph.
func (b *builder) run() (*nn.Network, error) {
	in, err := b.dataInput()
	if err != nil {
		return nil, err
	}
	if b.shape, err = inputShape(in, b.bud.left); err != nil {
		return nil, err
	}
	b.data = in.Name
	if err := b.nodes(0, len(b.g.nodes)); err != nil {
		return nil, err
	}
	if len(b.g.outputs) != 1 {
		return nil, fmt.Errorf("the graph has %d outputs, want 1: %w", len(b.g.outputs), ErrNotChain)
	}
	if out := b.g.outputs[0].Name; out != b.data {
		return nil, fmt.Errorf("the graph output %q is not the end of the chain (%q): %w", out, b.data, ErrNotChain)
	}
	if b.quant != nil {
		return nil, fmt.Errorf("the graph output %q is quantised integers (no DequantizeLinear): %w", b.data, ErrUnsupportedOp)
	}
	if err := b.flushClip(); err != nil {
		return nil, err
	}
	if b.pend != nil || len(b.layers) == 0 {
		if err := b.emit(nn.Activation{Kind: nn.Identity}); err != nil {
			return nil, err
		}
	}
	return &nn.Network{Layers: b.layers, Input: b.inputQ}, nil
}

// nodes translates the nodes from, ..., to-1; a residual block is
// translated whole (residual.go). Errors name the node.
func (b *builder) nodes(from, to int) error {
	for i := from; i < to; i++ {
		n := b.g.nodes[i]
		j, err := b.residualJoin(i)
		if err == nil && j >= 0 {
			if err := b.residual(i, j); err != nil {
				return err // it names the node
			}
			i = j
			continue
		}
		if err == nil {
			err = b.node(n)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", label(i, n), err)
		}
	}
	return nil
}

// label names node i for error messages: node 3 "conv1" (Conv), or
// node 3 (Conv) when it has no name.
func label(i int, n *node) string {
	if n.name == "" {
		return fmt.Sprintf("node %d (%s)", i, n.opType)
	}
	return fmt.Sprintf("node %d %q (%s)", i, n.name, n.opType)
}

// operands are the inputs of a node on the chain: the position of the data
// input, and the constant at every other position (nil where the optional
// input is absent).
type operands struct {
	data   int
	consts []*constant
}

// plainNode checks the domain and the output of n and translates a
// Constant node; done reports that n was one.
func (b *builder) plainNode(n *node) (done bool, err error) {
	if n.domain != "" && n.domain != "ai.onnx" {
		return false, fmt.Errorf("operator domain %q: %w", n.domain, ErrUnsupportedOp)
	}
	if len(n.outputs) == 0 || n.outputs[0] == "" {
		return false, fmt.Errorf("node has no output: %w", ErrMalformed)
	}
	if n.opType != "Constant" {
		return false, nil
	}
	c, err := constantNode(n)
	b.consts[n.outputs[0]] = c
	return true, err
}

// unsupported returns the error of an operator that is not read.
func unsupported(opType string) error {
	if isIntegerOp(opType) {
		return fmt.Errorf("operator %q (integer kernels are not read; export the model in QDQ form): %w",
			opType, ErrUnsupportedOp)
	}
	return fmt.Errorf("operator %q: %w", opType, ErrUnsupportedOp)
}

// node translates one node.
func (b *builder) node(n *node) error {
	if done, err := b.plainNode(n); done || err != nil {
		return err
	}
	ops := operands{data: -1, consts: make([]*constant, len(n.inputs))}
	for i, name := range n.inputs {
		switch {
		case name == "":
			continue
		case name == b.data:
			if ops.data >= 0 {
				return fmt.Errorf("reads the data %q twice: %w", name, ErrNotChain)
			}
			ops.data = i
			continue
		case b.used[name]:
			return fmt.Errorf("reads %q, which an earlier node already consumed (a branch): %w", name, ErrNotChain)
		}
		c, err := b.constant(name)
		if err != nil {
			return err
		}
		if c == nil {
			return fmt.Errorf("input %q is neither a constant nor the output of an earlier node: %w", name, ErrNotChain)
		}
		ops.consts[i] = c
	}
	if ops.data < 0 {
		if n.opType == "Identity" && len(ops.consts) == 1 && ops.consts[0] != nil {
			b.consts[n.outputs[0]] = ops.consts[0]
			return nil
		}
		if fold := folder(n.opType); fold != nil {
			c, err := fold(b, n, ops)
			if err != nil {
				return err
			}
			b.consts[n.outputs[0]] = c
			return nil
		}
		return fmt.Errorf("the node does not read the chain's data (constant folding is not supported): %w", ErrNotChain)
	}
	op := lookupOp(n.opType)
	switch {
	case op == nil:
		return unsupported(n.opType)
	case b.quant != nil && n.opType != "Cast" && n.opType != "DequantizeLinear":
		return fmt.Errorf("operator %q on the integers of a QuantizeLinear: %w", n.opType, ErrUnsupportedOp)
	}
	if err := op(b, n, ops); err != nil {
		return err
	}
	b.used[b.data] = true
	b.data = n.outputs[0]
	return nil
}
