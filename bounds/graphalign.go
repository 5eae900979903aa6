package bounds

import (
	"fmt"
	"slices"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Aligning two graphs for the difference graph.
//
// An int8 copy g2 of a float graph g1 is g1 with quantisers inserted (on
// the input, after activations, before joins) and its own weights. The
// difference graph pairs the values of the two graphs: every node that is
// not a quantiser (its skeleton node) with the node of the other graph of
// the same rank among skeleton nodes, and every value v1 of g1 with the
// values v2 of g2 it is read beside, through
//
//	d(v1, v2) = z2(v2) - z1(v1)
//
// For two skeleton values d is the pair's difference node (diffNode).
// Where a quantiser stands on one side only its difference is a pair node
// with the identity on the other side:
//
//	g2 only:  d(v1, q2(v2)) = q2(z + d) - z,   z = z1(v1), d = d(v1, v2)
//	g1 only:  d(q1(v1), v2) = (z + d) - q1(z)
//	both:     d(q1(v1), q2(v2)) = q2(z + d) - q1(z)
//
// so a pure rounding costs its rounding error, |q2(y) - y| <= s/2 away
// from saturation, as a term of its own in back-substitution. A node of g1
// or g2 reading values whose skeleton values are not paired makes the
// graphs unaligned (an error: GraphPair falls back to the combined graph).

// aligner builds the difference graph of g1 and g2 (see above).
type aligner struct {
	pg     *pairGraph
	g1, g2 *nn.Graph
	// partner[v1] is the skeleton value of g2 paired with skeleton value
	// v1 of g1 (0 with 0), -1 for a quantiser's value.
	partner []int
	// diff holds the difference nodes made so far, by (v1, v2).
	diff map[[2]int]int
	// with2[v2] is a value of g1 paired with v2 (-1: none yet).
	with2 []int
	// oneSided allows quantisers of one graph only.
	oneSided bool
}

// newDiffGraph builds the difference graph of g1 and g2 on in (with
// oneSided, also when a quantiser of one graph has none paired in the
// other; with chains, affine differences as chainDiff nodes): its input
// is [x1; x2 - x1] in the box of x1 and an enclosure of x2 - x1; value v
// of g1 is value zmap[v], and value v of g2 is the sum of values
// zmap[with[v]] and dmap[v]; the output difference is the last value. It returns an error
// if the graphs are not aligned (see above) or a difference of their
// parameters is not exact.
func newDiffGraph(g1, g2 *nn.Graph, in spec.Inputs, oneSided, chains bool) (*pairGraph, error) {
	n := g1.InputSize()
	x := boxIntervals(in.Box)
	d := make([]Interval, n)
	for i, xi := range x {
		switch in.Pairing {
		case spec.Independent:
			d[i] = xi.Sub(xi)
		case spec.QuantisedInput:
			d[i] = quantError(in, xi)
		}
	}
	pg := &pairGraph{g: &nn.Graph{InputShape: []int{2 * n}}, box: append(x, d...), chains: chains, ysum: map[int]int{}}
	a := &aligner{pg: pg, g1: g1, g2: g2, diff: map[[2]int]int{}, oneSided: oneSided}
	skel1, skel2 := skeleton(g1), skeleton(g2)
	if len(skel1) != len(skel2) {
		return nil, fmt.Errorf("bounds: graphs of %d and %d nodes besides quantisers", len(skel1), len(skel2))
	}
	a.partner = slices.Repeat([]int{-1}, len(g1.Nodes)+1)
	a.with2 = slices.Repeat([]int{-1}, len(g2.Nodes)+1)
	a.partner[0] = 0
	for k, k1 := range skel1 {
		a.partner[k1+1] = skel2[k] + 1
	}
	pg.zmap = make([]int, len(g1.Nodes)+1)
	pg.zmap[0] = pg.half(n, 0, g1.InputShape)
	a.diff[[2]int{0, 0}], a.with2[0] = pg.half(n, n, g1.InputShape), 0
	for k, n1 := range g1.Nodes {
		z := pg.remap(n1.Inputs, pg.zmap)
		pg.zmap[k+1] = pg.add(nn.Node{Op: n1.Op, Inputs: z, Shape: n1.Shape, Name: n1.Name})
		if a.partner[k+1] < 0 {
			continue // a quantiser: its differences are made when read
		}
		if err := a.skeletonDiff(k, z); err != nil {
			return nil, err
		}
	}
	out, err := a.diffOf(len(g1.Nodes), len(g2.Nodes))
	if err != nil {
		return nil, err
	}
	// Every value of g2 gets a difference, so that diffBounds can bound it.
	for v2 := 1; v2 <= len(g2.Nodes); v2++ {
		if err := a.cover(v2); err != nil {
			return nil, err
		}
	}
	if out != len(pg.g.Nodes) { // the output difference must be the last value
		ones := make([]float64, g1.OutputSize())
		for i := range ones {
			ones[i] = 1
		}
		out = pg.add(nn.Node{Op: &nn.Affine{M: &nn.Scale{S: ones}}, Inputs: []int{out}, Shape: g1.Nodes[len(g1.Nodes)-1].Shape})
	}
	pg.with, pg.dmap = a.with2, make([]int, len(g2.Nodes)+1)
	for v2, v1 := range a.with2 {
		pg.dmap[v2] = a.diff[[2]int{v1, v2}]
	}
	pg.with[len(g2.Nodes)], pg.dmap[len(g2.Nodes)] = len(g1.Nodes), out
	pg.weightTerms = append(pg.weightTerms, make([]bool, len(pg.g.Nodes)+1-len(pg.weightTerms))...)
	return pg, nil
}

// skeleton returns the nodes of g that are not quantisers, in order.
func skeleton(g *nn.Graph) []int {
	var out []int
	for k, node := range g.Nodes {
		if _, ok := node.Op.(*nn.Quantise); !ok {
			out = append(out, k)
		}
	}
	return out
}

// quantiserOf returns the quantiser of value v of g and the value it
// reads, if v is a quantiser's output.
func quantiserOf(g *nn.Graph, v int) (*nn.Quantiser, int, bool) {
	if v == 0 {
		return nil, 0, false
	}
	node := g.Nodes[v-1]
	if q, ok := node.Op.(*nn.Quantise); ok {
		return q.Q, node.Inputs[0], true
	}
	return nil, 0, false
}

// skeletonDiff appends the difference node of skeleton node k of g1 and
// its partner, whose inputs in g1 are the values z of the graph.
func (a *aligner) skeletonDiff(k int, z []int) error {
	n1, v2 := a.g1.Nodes[k], a.partner[k+1]
	n2 := a.g2.Nodes[v2-1]
	// Sizes, not shapes: every operation acts on the flat values, so a
	// copy saved with its activations flattened (Flatten, Reshape around
	// them) computes the same; the difference node takes g1's shape.
	if len(n1.Inputs) != len(n2.Inputs) || a.g1.Size(k+1) != a.g2.Size(v2) {
		return fmt.Errorf("bounds: %s and %s read or give other values", a.g1.Label(k), a.g2.Label(v2-1))
	}
	d := make([]int, len(n1.Inputs))
	for i := range d {
		var err error
		if d[i], err = a.diffOf(n1.Inputs[i], n2.Inputs[i]); err != nil {
			return fmt.Errorf("%w (%s)", err, a.g1.Label(k))
		}
	}
	dv, err := a.pg.diffNode(n1.Op, n2.Op, z, d, a.pg.zmap[k+1], n1.Shape)
	if err != nil {
		return fmt.Errorf("%w (%s)", err, a.g1.Label(k))
	}
	a.diff[[2]int{k + 1, v2}], a.with2[v2] = dv, k+1
	return nil
}

// diffOf returns the value of d(v1, v2) (see above), appending the pair
// nodes of quantisers it needs.
func (a *aligner) diffOf(v1, v2 int) (int, error) {
	if dv, ok := a.diff[[2]int{v1, v2}]; ok {
		return dv, nil
	}
	if a.g1.Size(v1) != a.g2.Size(v2) {
		return 0, fmt.Errorf("bounds: values %d of graph 1 and %d of graph 2 differ in size", v1, v2)
	}
	q1, in1, ok1 := quantiserOf(a.g1, v1)
	q2, in2, ok2 := quantiserOf(a.g2, v2)
	var z, d int
	var err error
	switch {
	case ok1 && ok2:
		z = a.pg.zmap[in1]
		d, err = a.diffOf(in1, in2)
	case ok1:
		z = a.pg.zmap[in1]
		d, err = a.diffOf(in1, v2)
	case ok2:
		z = a.pg.zmap[v1]
		d, err = a.diffOf(v1, in2)
	default:
		return 0, fmt.Errorf("bounds: values %d of graph 1 and %d of graph 2 are not paired", v1, v2)
	}
	if err != nil {
		return 0, err
	}
	if (q1 == nil || q2 == nil) && !a.oneSided {
		return 0, fmt.Errorf("bounds: a quantiser of one graph only (values %d and %d)", v1, v2)
	}
	dv := a.pg.pairNode(pairQuant{q1, q2}, z, d, q2 != nil, a.g1.Shape(v1))
	a.diff[[2]int{v1, v2}] = dv
	if a.with2[v2] < 0 {
		a.with2[v2] = v1
	}
	return dv, nil
}

// cover gives value v2 of g2 a difference if it has none: a quantiser's
// output read by no node paired so far.
func (a *aligner) cover(v2 int) error {
	if a.with2[v2] >= 0 {
		return nil
	}
	_, in2, ok := quantiserOf(a.g2, v2)
	if !ok || a.with2[in2] < 0 {
		return fmt.Errorf("bounds: value %d of graph 2 is paired with no value of graph 1", v2)
	}
	_, err := a.diffOf(a.with2[in2], v2)
	return err
}

// pairNode appends the pair node op reading z and d and returns its value;
// with sum, the node also reads a value y = z + d appended before it, whose
// back-substituted bounds are those of the second network's value.
func (pg *pairGraph) pairNode(op nn.Op, z, d int, sum bool, shape []int) int {
	if !sum {
		return pg.add(nn.Node{Op: op, Inputs: []int{z, d}, Shape: shape})
	}
	y := pg.add(nn.Node{Op: nn.Add{}, Inputs: []int{z, d}, Shape: shape})
	return pg.add(nn.Node{Op: op, Inputs: []int{z, d, y}, Shape: shape})
}
