package bounds

import (
	"fmt"
	"slices"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// GraphPairBounds holds sound bounds for two graphs g1, g2 on paired
// inputs (x1, x2) (spec.Inputs):
//
//	Diff[j] ⊇ {g2_j(x2) - g1_j(x1)}
//
// over every pair, and the bounds of every value of each graph (Net1 on
// the box, Net2 on the set of x2).
//
// They come from one combined graph (Combined): its input x (or [x1; x2]
// for spec.Independent, [x; e] with x2 = x + e for spec.QuantisedInput),
// g1's nodes reading x1, g2's reading x2, and a last node g2(x2) -
// g1(x1), bounded by GraphSingle's propagation. Back-substitution from
// that difference reaches the shared input through both graphs, so where
// their relaxations are exact (stable neurons) the linear parts cancel.
type GraphPairBounds struct {
	Diff       []Interval
	Net1, Net2 *GraphNet
	Combined   *GraphNet
}

// Norm2 returns an upper bound of ||g2(x2) - g1(x1)||_2 over the pairs.
func (pb *GraphPairBounds) Norm2() float64 { return norm2Up(pb.Diff) }

// NormInf returns an upper bound of ||g2(x2) - g1(x1)||_inf over the pairs.
func (pb *GraphPairBounds) NormInf() float64 {
	m := 0.0
	for _, d := range pb.Diff {
		m = max(m, d.Mag())
	}
	return m
}

// GraphPair returns sound bounds of g2(x2) - g1(x1) for the input pairs
// of in. The graphs must take in.Box.Dim() inputs and have the same number
// of outputs; their nodes may differ.
func GraphPair(g1, g2 *nn.Graph, in spec.Inputs, opts GraphOptions) (*GraphPairBounds, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := checkGraph(g1, in.Box, "graph 1"); err != nil {
		return nil, err
	}
	if err := checkGraph(g2, in.Box, "graph 2"); err != nil {
		return nil, err
	}
	if g1.OutputSize() != g2.OutputSize() {
		return nil, fmt.Errorf("bounds: graph 1 has %d outputs, graph 2 has %d: %w",
			g1.OutputSize(), g2.OutputSize(), nn.ErrDimension)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	pg := newPairGraph(g1, g2, in)
	net := propagateGraph(pg.g, pg.box, opts)
	return &GraphPairBounds{
		Diff:     net.Output,
		Net1:     pg.view(net, pg.x1, pg.off1, len(g1.Nodes)),
		Net2:     pg.view(net, pg.x2, pg.off2, len(g2.Nodes)),
		Combined: net,
	}, nil
}

// pairGraph is the combined graph of a pair (see GraphPairBounds) with the
// box of its input: x1 and x2 are the values of the two inputs, and value
// v > 0 of g1 (g2) is value v + off1 (v + off2).
type pairGraph struct {
	g          *nn.Graph
	box        []Interval
	x1, x2     int
	off1, off2 int
}

// newPairGraph builds the combined graph of g1 and g2 on in.
func newPairGraph(g1, g2 *nn.Graph, in spec.Inputs) *pairGraph {
	n := g1.InputSize()
	x := boxIntervals(in.Box)
	pg := &pairGraph{g: &nn.Graph{InputShape: slices.Clone(g1.InputShape)}, box: x}
	half := func(from int) int {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = from + i
		}
		return pg.add(nn.Node{Op: &nn.Affine{M: &nn.Gather{N: 2 * n, Index: idx}}, Inputs: []int{0}, Shape: g1.InputShape})
	}
	switch in.Pairing {
	case spec.Independent:
		pg.g.InputShape, pg.box = []int{2 * n}, append(x, x...)
		pg.x1, pg.x2 = half(0), half(n)
	case spec.QuantisedInput:
		// x2 = x + e with e in the enclosure of the rounding error.
		e := make([]Interval, n)
		for i, xi := range x {
			e[i] = quantError(in, xi)
		}
		pg.g.InputShape, pg.box = []int{2 * n}, append(x, e...)
		pg.x1 = half(0)
		pg.x2 = pg.add(nn.Node{Op: nn.Add{}, Inputs: []int{pg.x1, half(n)}, Shape: g1.InputShape})
	}
	pg.off1 = pg.appendGraph(g1, pg.x1)
	pg.off2 = pg.appendGraph(g2, pg.x2)
	out1, out2 := pg.off1+len(g1.Nodes), pg.off2+len(g2.Nodes)
	pg.add(nn.Node{Op: nn.Add{Negate: true}, Inputs: []int{out2, out1}, Shape: g2.Nodes[len(g2.Nodes)-1].Shape, Name: "difference"})
	return pg
}

// add appends node and returns its value.
func (pg *pairGraph) add(node nn.Node) int {
	pg.g.Nodes = append(pg.g.Nodes, node)
	return len(pg.g.Nodes)
}

// appendGraph appends the nodes of g with its input read from value x,
// and returns the offset of g's values.
func (pg *pairGraph) appendGraph(g *nn.Graph, x int) int {
	off := len(pg.g.Nodes)
	for _, node := range g.Nodes {
		ins := make([]int, len(node.Inputs))
		for i, v := range node.Inputs {
			ins[i] = v + off
			if v == 0 {
				ins[i] = x
			}
		}
		pg.add(nn.Node{Op: node.Op, Inputs: ins, Shape: node.Shape, Name: node.Name})
	}
	return off
}

// view returns the bounds of one graph's values within net.
func (pg *pairGraph) view(net *GraphNet, x, off, nodes int) *GraphNet {
	vals := make([][]Interval, nodes+1)
	vals[0] = net.Values[x]
	copy(vals[1:], net.Values[off+1:off+1+nodes])
	return &GraphNet{Values: vals, Output: vals[nodes]}
}
