package onnx

import (
	"fmt"
)

// builder holds what translating a graph shares: the graph, the budget,
// the constants (initializers converted on first use, Constant nodes,
// folded nodes), the readers of each value, and the shape of the tensor
// the shape operators (ops_shape.go) change.
type builder struct {
	g      *graph
	bud    *budget
	inits  map[string]*tensor   // initializers not yet converted
	consts map[string]*constant // converted initializers and constant node outputs
	reads  map[string][]int     // the nodes reading each value, in order
	shape  shape                // the tensor of a shape operator
}

// newBuilder returns a builder for g whose allocations are bounded by bud.
func newBuilder(g *graph, bud *budget) *builder {
	b := &builder{g: g, bud: bud, inits: map[string]*tensor{}, consts: map[string]*constant{}}
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

// label names node i for error messages: node 3 "conv1" (Conv), or
// node 3 (Conv) when it has no name.
func label(i int, n *node) string {
	if n.name == "" {
		return fmt.Sprintf("node %d (%s)", i, n.opType)
	}
	return fmt.Sprintf("node %d %q (%s)", i, n.name, n.opType)
}

// operands are the inputs of a node: the position of its computed tensor
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
