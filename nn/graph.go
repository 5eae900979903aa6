package nn

import (
	"fmt"
	"slices"
	"strings"
)

// Graph is a network as a directed acyclic graph of operations on one
// data input: the model of every network nnbound reads. Values are
// numbered: value 0 is the input, value k+1 the output of Nodes[k]; nodes
// are in topological order (each reads values before its own), and the
// graph's output is the last node's value. Every value is a flattened
// sample (row-major, CHW for images); Shape records its axes.
//
// A chain Network is the special case of a path (Network.Graph), and a
// graph that is a path of the chain's pattern converts back (Chain), so
// code written for chains keeps serving them.
type Graph struct {
	// InputShape is the shape of one sample of the input, [n] for a vector.
	InputShape []int
	Nodes      []Node
}

// Node is one operation applied to earlier values.
type Node struct {
	Op     Op
	Inputs []int // value numbers, each below this node's own
	Shape  []int // shape of the node's output
	Name   string
}

// InputSize returns the number of input values.
func (g *Graph) InputSize() int { return shapeSize(g.InputShape) }

// OutputSize returns the number of output values.
func (g *Graph) OutputSize() int { return g.Size(len(g.Nodes)) }

// Size returns the number of values of value v.
func (g *Graph) Size(v int) int {
	if v == 0 {
		return g.InputSize()
	}
	return shapeSize(g.Nodes[v-1].Shape)
}

// Shape returns the shape of value v.
func (g *Graph) Shape(v int) []int {
	if v == 0 {
		return g.InputShape
	}
	return g.Nodes[v-1].Shape
}

// shapeSize returns the product of the axes.
func shapeSize(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// Label names node k for messages: `node 3 "conv1" (conv 3x3 1->16)`.
func (g *Graph) Label(k int) string {
	n := g.Nodes[k]
	if n.Name != "" {
		return fmt.Sprintf("node %d %q (%s)", k, n.Name, n.Op.Describe())
	}
	return fmt.Sprintf("node %d (%s)", k, n.Op.Describe())
}

// Validate checks that the graph has nodes, that every node reads earlier
// values of the sizes its operation takes, and that its parameters are
// finite and its shape matches its size. The error names the node.
func (g *Graph) Validate() error {
	if g == nil || len(g.Nodes) == 0 {
		return fmt.Errorf("nn: graph has no nodes: %w", ErrDimension)
	}
	for _, d := range g.InputShape {
		if d < 1 {
			return fmt.Errorf("nn: input shape %v: %w", g.InputShape, ErrDimension)
		}
	}
	for k, n := range g.Nodes {
		want := opInputs(n.Op)
		if (want > 0 && len(n.Inputs) != want) || (want < 0 && len(n.Inputs) < 1) {
			return fmt.Errorf("nn: %s reads %d values: %w", g.Label(k), len(n.Inputs), ErrDimension)
		}
		sizes := make([]int, len(n.Inputs))
		for i, v := range n.Inputs {
			if v < 0 || v > k {
				return fmt.Errorf("nn: %s reads value %d, not an earlier one: %w", g.Label(k), v, ErrDimension)
			}
			sizes[i] = g.Size(v)
		}
		out, err := outSize(n.Op, sizes)
		if err != nil {
			return fmt.Errorf("nn: %s: %w", g.Label(k), err)
		}
		if out != shapeSize(n.Shape) {
			return fmt.Errorf("nn: %s gives %d values but has shape %v: %w", g.Label(k), out, n.Shape, ErrDimension)
		}
	}
	return nil
}

// Eval returns g(x), evaluated in float64 with the operators' ONNX
// semantics.
func (g *Graph) Eval(x []float64) ([]float64, error) {
	vals, err := g.EvalAll(x)
	if err != nil {
		return nil, err
	}
	return vals[len(vals)-1], nil
}

// EvalAll returns every value of g at x: vals[0] is x, vals[k+1] the
// output of node k.
func (g *Graph) EvalAll(x []float64) ([][]float64, error) {
	if len(x) != g.InputSize() {
		return nil, fmt.Errorf("nn: input has %d values, graph takes %d: %w", len(x), g.InputSize(), ErrDimension)
	}
	vals := make([][]float64, len(g.Nodes)+1)
	vals[0] = x
	in := make([][]float64, 0, 2)
	for k, n := range g.Nodes {
		in = in[:0]
		for _, v := range n.Inputs {
			in = append(in, vals[v])
		}
		vals[k+1] = make([]float64, shapeSize(n.Shape))
		n.Op.Eval(vals[k+1], in)
	}
	return vals, nil
}

// Readers returns, for each value, the nodes that read it.
func (g *Graph) Readers() [][]int {
	r := make([][]int, len(g.Nodes)+1)
	for k, n := range g.Nodes {
		for _, v := range n.Inputs {
			if !slices.Contains(r[v], k) {
				r[v] = append(r[v], k)
			}
		}
	}
	return r
}

// Clone returns a deep copy of g.
func (g *Graph) Clone() *Graph {
	c := &Graph{InputShape: slices.Clone(g.InputShape), Nodes: make([]Node, len(g.Nodes))}
	for k, n := range g.Nodes {
		c.Nodes[k] = Node{Op: cloneOp(n.Op), Inputs: slices.Clone(n.Inputs), Shape: slices.Clone(n.Shape), Name: n.Name}
	}
	return c
}

// Ops counts the nodes of each operation kind: "conv 3x3 1->16" counts as
// "conv", for inspect.
func (g *Graph) Ops() string {
	var names []string
	count := map[string]int{}
	for _, n := range g.Nodes {
		name, _, _ := strings.Cut(n.Op.Describe(), " ")
		name, _, _ = strings.Cut(name, "(")
		if count[name] == 0 {
			names = append(names, name)
		}
		count[name]++
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%d %s", count[n], n)
	}
	return strings.Join(parts, ", ")
}

// EvalFloat32 returns g(x) evaluated as a float32 runtime evaluates the
// graph: the input rounded to float32, each operation computed on float32
// values with its float64 result rounded once to float32 (a runtime's own
// summation order differs from this by at most the float32 rounding of its
// sums), activations as act32 and quantisers as Quantiser.Apply32, whose
// division rounds in float32 as ONNX's QuantizeLinear does. Weights are
// used as stored: a model read from a float32 file holds float32 values.
// The result is widened to float64 exactly.
func (g *Graph) EvalFloat32(x []float64) ([]float64, error) {
	if len(x) != g.InputSize() {
		return nil, fmt.Errorf("nn: input has %d values, graph takes %d: %w", len(x), g.InputSize(), ErrDimension)
	}
	vals := make([][]float64, len(g.Nodes)+1)
	vals[0] = make([]float64, len(x))
	for i, v := range x {
		vals[0][i] = float64(float32(v))
	}
	in := make([][]float64, 0, 2)
	for k, n := range g.Nodes {
		in = in[:0]
		for _, v := range n.Inputs {
			in = append(in, vals[v])
		}
		out := make([]float64, shapeSize(n.Shape))
		switch op := n.Op.(type) {
		case *Quantise:
			for i, v := range in[0] {
				out[i] = float64(op.Q.Apply32(i, float32(v)))
			}
		case Act:
			for i, v := range in[0] {
				out[i] = float64(act32(op.Act, float32(v)))
			}
		default:
			op.Eval(out, in)
			for i, v := range out {
				out[i] = float64(float32(v))
			}
		}
		vals[k+1] = out
	}
	return vals[len(g.Nodes)], nil
}

// NumParams returns the number of weights and biases of g's affine nodes
// (a convolution's bias once per channel where it is: ModelBias).
func (g *Graph) NumParams() int {
	n := 0
	for _, nd := range g.Nodes {
		if a, ok := nd.Op.(*Affine); ok {
			n += len(a.Weights()) + len(a.ModelBias())
		}
	}
	return n
}

// Quantised reports whether g has any quantiser node.
func (g *Graph) Quantised() bool {
	return slices.ContainsFunc(g.Nodes, func(n Node) bool {
		_, ok := n.Op.(*Quantise)
		return ok
	})
}
