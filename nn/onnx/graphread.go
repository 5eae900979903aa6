package onnx

import (
	"fmt"
	"os"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// ReadGraph reads the ONNX model in the file at path and translates it
// into an nn.Graph: any DAG of the supported operators from one data input
// to one output (see the package documentation). Info is returned whenever
// the file parses as ONNX, even if the translation fails.
func ReadGraph(path string) (*nn.Graph, *Info, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("onnx: %w", err)
	}
	return DecodeGraph(data, path)
}

// DecodeGraph is ReadGraph for a model held in memory; name (usually the
// file name) prefixes error messages.
func DecodeGraph(data []byte, name string) (*nn.Graph, *Info, error) {
	g, info, _, err := translateGraph(data, name)
	return g, info, err
}

// translateGraph is DecodeGraph, also returning the decoded model.
func translateGraph(data []byte, name string) (*nn.Graph, *Info, *model, error) {
	m, err := decodeModel(data)
	if fault := wireFault(err); fault != "" {
		return nil, nil, nil, fmt.Errorf("onnx: %s: %s (%d bytes): %w", name, fault, len(data), err)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("onnx: %s: %w", name, err)
	}
	b := newGraphBuilder(m.graph, newBudget(len(data)))
	info := m.info(b.dataInputs())
	g, err := b.run()
	if err == nil {
		g.Fuse(fuseEntries)
		err = g.Validate()
	}
	if err != nil {
		return nil, info, m, fmt.Errorf("onnx: %s: %w", name, err)
	}
	info.Graph = g
	return g, info, m, nil
}

// fuseEntries is the largest dense matrix, in entries, that the fusion of
// a graph's affine nodes builds (see nn.Graph.Fuse).
const fuseEntries = 1 << 20

// tval is a computed tensor: graph value v, of shape s (batch axis
// included).
type tval struct {
	v int
	s shape
}

// qval is the integers of a QuantizeLinear of the computed tensor src: they
// may only be cast to their own type and dequantised with the same
// parameters, which is one nn.Quantise node (made once, value out >= 0).
type qval struct {
	src  tval
	q    *nn.Quantiser
	typ  DataType
	name string // of the QuantizeLinear node, for messages
	out  int
}

// gin is one input of a node: a constant, a computed tensor or quantised
// integers (one of them is set; none for an absent optional input).
type gin struct {
	c *constant
	t *tval
	q *qval
}

// graphBuilder translates an ONNX graph into an nn.Graph node by node. It
// embeds the shared state (builder): constants, initializers, budget.
type graphBuilder struct {
	*builder
	vals   map[string]tval
	quants map[string]*qval
	clips  map[int]clipped // the clippings made, by their output value
	out    *nn.Graph
}

// newGraphBuilder returns a graph builder for g within bud.
func newGraphBuilder(g *graph, bud *budget) *graphBuilder {
	return &graphBuilder{builder: newBuilder(g, bud), vals: map[string]tval{}, quants: map[string]*qval{},
		clips: map[int]clipped{}, out: &nn.Graph{}}
}

// run translates the graph.
func (b *graphBuilder) run() (*nn.Graph, error) {
	in, err := b.dataInput()
	if err != nil {
		return nil, err
	}
	s, err := inputShape(in, b.bud.left)
	if err != nil {
		return nil, err
	}
	b.out.InputShape = nnShape(s)
	b.vals[in.Name] = tval{v: 0, s: s}
	for k, n := range b.g.nodes {
		if err := b.node(n); err != nil {
			return nil, fmt.Errorf("%s: %w", label(k, n), err)
		}
	}
	if len(b.g.outputs) != 1 {
		return nil, fmt.Errorf("the graph has %d outputs, want 1: %w", len(b.g.outputs), ErrNotChain)
	}
	name := b.g.outputs[0].Name
	t, ok := b.vals[name]
	switch {
	case b.quants[name] != nil:
		return nil, fmt.Errorf("the graph output %q is quantised integers (no DequantizeLinear): %w", name, ErrUnsupportedOp)
	case !ok:
		return nil, fmt.Errorf("the graph output %q is not computed from the data input: %w", name, ErrNotChain)
	}
	return b.prune(t.v), nil
}

// prune returns the graph of the nodes that value out depends on, out
// last; an identity node if out is the input.
func (b *graphBuilder) prune(out int) *nn.Graph {
	g := b.out
	if out == 0 {
		g.Nodes = append(g.Nodes[:0], nn.Node{Op: nn.Act{Act: nn.Activation{Kind: nn.Identity}},
			Inputs: []int{0}, Shape: g.InputShape})
		return g
	}
	g.Nodes = g.Nodes[:out]
	g.Prune()
	return g
}

// nnShape returns the shape of one sample of s, as nn.Graph records it: the
// sample axes, without a leading unit axis standing for a batch of one.
func nnShape(s shape) []int {
	d := s.sampleDims()
	if s.batch < 0 && len(d) >= 2 && d[0] == 1 {
		d = d[1:]
	}
	out := make([]int, len(d))
	for i, v := range d {
		out[i] = int(v)
	}
	return out
}

// emit appends the node op reading the values in, with output shape s, and
// returns its value.
func (b *graphBuilder) emit(n *node, op nn.Op, s shape, in ...int) tval {
	b.out.Nodes = append(b.out.Nodes, nn.Node{Op: op, Inputs: in, Shape: nnShape(s), Name: n.name})
	return tval{v: len(b.out.Nodes), s: s}
}

// isOutput reports whether name is a graph output.
func (b *graphBuilder) isOutput(name string) bool {
	return slices.ContainsFunc(b.g.outputs, func(v Value) bool { return v.Name == name })
}

// set records t as the first output of n.
func (b *graphBuilder) set(n *node, t tval) { b.vals[n.outputs[0]] = t }

// graphOpFunc translates one node whose inputs include a computed tensor,
// recording its output (set).
type graphOpFunc func(b *graphBuilder, n *node, in []gin) error

// node translates one node.
func (b *graphBuilder) node(n *node) error {
	if done, err := b.plainNode(n); done || err != nil {
		return err
	}
	in := make([]gin, len(n.inputs))
	fromData, quant := false, (*qval)(nil)
	for i, name := range n.inputs {
		if name == "" {
			continue
		}
		if t, ok := b.vals[name]; ok {
			in[i].t, fromData = &t, true
			continue
		}
		if q := b.quants[name]; q != nil {
			in[i].q, fromData, quant = q, true, q
			continue
		}
		c, err := b.constant(name)
		if err != nil {
			return err
		}
		if c == nil {
			return fmt.Errorf("input %q is neither a constant nor the output of an earlier node: %w", name, ErrMalformed)
		}
		in[i].c = c
	}
	if !fromData {
		c, err := b.fold(n, in)
		if err != nil {
			return err
		}
		b.consts[n.outputs[0]] = c
		return nil
	}
	op := lookupGraphOp(n.opType)
	switch {
	case op == nil:
		return unsupported(n.opType)
	case quant != nil && n.opType != "Cast" && n.opType != "DequantizeLinear":
		return fmt.Errorf("operator %q reads the integers of QuantizeLinear %q (only a no-op Cast and a "+
			"DequantizeLinear with the same parameters are read): %w", n.opType, quant.name, ErrUnsupportedOp)
	}
	before := len(b.out.Nodes)
	if err := op(b, n, in); err != nil {
		return err
	}
	for _, made := range b.out.Nodes[min(before, len(b.out.Nodes)):] {
		if err := b.bud.take(shapeSize(made.Shape)); err != nil { // the values evaluation holds
			return err
		}
	}
	return nil
}

// shapeSize returns the number of values of a sample of shape s.
func shapeSize(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// unary returns the one computed tensor among a node's inputs, which must
// be at position 0 unless anywhere is true, and the operands as the shared
// operator translations take them.
func unary(n *node, in []gin, anywhere bool) (tval, operands, error) {
	ops := operands{data: -1, consts: make([]*constant, len(in))}
	for i, g := range in {
		switch {
		case g.q != nil:
			return tval{}, ops, fmt.Errorf("input %d is quantised integers: %w", i, ErrUnsupportedOp)
		case g.t != nil && ops.data >= 0:
			return tval{}, ops, fmt.Errorf("%s of two computed tensors: %w", n.opType, ErrUnsupportedOp)
		case g.t != nil:
			ops.data = i
		}
		ops.consts[i] = g.c
	}
	if ops.data < 0 {
		return tval{}, ops, fmt.Errorf("%s reads no computed tensor: %w", n.opType, ErrMalformed)
	}
	if ops.data != 0 && !anywhere {
		return tval{}, ops, fmt.Errorf("input %d of %s is a computed tensor, want a constant: %w", ops.data, n.opType, ErrNotConstant)
	}
	return *in[ops.data].t, ops, nil
}

// computed returns the computed tensors among in, in order, and whether
// every present input is one.
func computed(in []gin) ([]tval, bool) {
	var ts []tval
	all := true
	for _, g := range in {
		if g.t != nil {
			ts = append(ts, *g.t)
		} else if g.c != nil || g.q != nil {
			all = false
		}
	}
	return ts, all
}

// values returns the value numbers of ts.
func values(ts []tval) []int {
	v := make([]int, len(ts))
	for i, t := range ts {
		v[i] = t.v
	}
	return v
}

// sameSample reports whether a and b have the same sample axes.
func sameSample(a, b shape) bool { return slices.Equal(a.sampleDims(), b.sampleDims()) }
