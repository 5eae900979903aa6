package bounds

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"gonum.org/v1/gonum/mat"
)

// GraphPairBounds holds sound bounds for two graphs g1, g2 on paired
// inputs (x1, x2) (spec.Inputs):
//
//	Diff[j] ⊇ {g2_j(x2) - g1_j(x1)}
//
// over every pair, and the bounds of every value of each graph (Net1 on
// the box, Net2 on the set of x2).
//
// They come from one graph bounded by GraphSingle's propagation, whose
// bounds are Combined. When g1 and g2 have the same structure (a
// perturbed or quantised-weight copy) it is their difference graph
// (graphdiff.go): the values of g1 and their differences in g2, node by
// node. Otherwise (or with GraphOptions.Combined) it is the combined
// graph: its input x (or [x1; x2] for spec.Independent, [x; e] with
// x2 = x + e for spec.QuantisedInput), g1's nodes reading x1, g2's
// reading x2, and a last node g2(x2) - g1(x1); back-substitution from
// that difference reaches the shared input through both graphs, so where
// their relaxations are exact (stable neurons) the linear parts cancel.
// With GraphOptions.Float32 the two graphs first get their rounding nodes
// (graphfloat32.go), which Combined then holds; Net1 and Net2 are indexed
// by the values of g1 and g2 all the same.
//
// With GraphOptions.Planar, Combined's last value is the output
// difference's margins in the directions of its planes (the graph's
// output difference first), and planes the norm of each plane's polygon.
type GraphPairBounds struct {
	Diff       []Interval
	Net1, Net2 *GraphNet
	Combined   *GraphNet
	planes     []float64
}

// Norm2 returns an upper bound of ||g2(x2) - g1(x1)||_2 over the pairs:
// the norm of Diff, or with GraphOptions.Planar that of the planes'
// polygons where smaller.
func (pb *GraphPairBounds) Norm2() float64 {
	norm := norm2Up(pb.Diff)
	if pb.planes == nil {
		return norm
	}
	return min(norm, planesNorm(pb.Diff, pb.planes))
}

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
	return GraphPairContext(context.Background(), g1, g2, in, opts)
}

// GraphPairContext is GraphPair stopped by ctx: once ctx is done it
// returns ctx's error (wrapped) after at most one batch of rows per
// worker.
func GraphPairContext(ctx context.Context, g1, g2 *nn.Graph, in spec.Inputs, opts GraphOptions) (*GraphPairBounds, error) {
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
	if !opts.Float32 {
		return graphPair(ctx, g1, g2, in, opts)
	}
	h1, m1 := float32Graph(g1)
	h2, m2 := float32Graph(g2)
	pb, err := graphPair(ctx, h1, h2, in, opts)
	if err != nil {
		return nil, err
	}
	pb.Net1, pb.Net2 = pb.Net1.remap(m1), pb.Net2.remap(m2)
	return pb, nil
}

// chains reports whether a difference graph gets chainDiff nodes
// (graphchains.go): only when every row is back-substituted to the input,
// where they give the same linear forms; a row stopped at an intermediate
// value would concretise -M1^T c on z there rather than the small
// (M2 - M1)^T c.
func (o GraphOptions) chains() bool {
	return o.Intermediate == IntermediateBacksub && !o.IntervalWeightTerms
}

// graphPair is GraphPairContext on valid graphs and options.
func graphPair(ctx context.Context, g1, g2 *nn.Graph, in spec.Inputs, opts GraphOptions) (*GraphPairBounds, error) {
	if !opts.Combined {
		if pg, err := newDiffGraph(g1, g2, in, opts.AlignQuantisers, opts.chains()); err == nil {
			var cut []bool
			if opts.IntervalWeightTerms {
				cut = pg.weightTerms
			}
			out := len(pg.g.Nodes)
			pg.addDirections(opts.Planar)
			if cut != nil {
				cut = append(cut, make([]bool, len(pg.g.Nodes)+1-len(cut))...)
			}
			net, err := propagateGraph(ctx, pg.g, pg.box, opts, cut)
			if err != nil {
				return nil, err
			}
			planes := pg.planeNorms(net, out, opts.Planar)
			pb := pg.diffBounds(net)
			pb.planes = planes
			return pb, nil
		}
	}
	pg := newPairGraph(g1, g2, in)
	out := len(pg.g.Nodes)
	pg.addDirections(opts.Planar)
	net, err := propagateGraph(ctx, pg.g, pg.box, opts, nil)
	if err != nil {
		return nil, err
	}
	planes := pg.planeNorms(net, out, opts.Planar)
	return &GraphPairBounds{
		Diff:     net.Values[out],
		Net1:     pg.view(net, pg.x1, pg.off1, len(g1.Nodes)),
		Net2:     pg.view(net, pg.x2, pg.off2, len(g2.Nodes)),
		Combined: net,
		planes:   planes,
	}, nil
}

// addDirections appends, for k >= 2 and at least two outputs, a node
// reading the output difference d (the last value) whose values are d
// itself, then the margins
//
//	c_t^T (d_2p, d_2p+1),   c_t = (cos(pi t / k), sin(pi t / k)),   t = 0, ..., k-1,
//
// of each plane p of two outputs (as PairBounds.Norm2Planar), so that
// back-substitution bounds them all as the graph's output.
func (pg *pairGraph) addDirections(k int) {
	out := len(pg.g.Nodes)
	n := pg.g.Size(out)
	planes := n / 2
	if k < 2 || planes == 0 {
		return
	}
	rows := n + planes*k
	w := mat.NewDense(rows, n, nil)
	for i := range n {
		w.Set(i, i, 1)
	}
	for p := range planes {
		for t := range k {
			th := math.Pi * float64(t) / float64(k)
			w.Set(n+p*k+t, 2*p, math.Cos(th))
			w.Set(n+p*k+t, 2*p+1, math.Sin(th))
		}
	}
	pg.add(nn.Node{Op: &nn.Affine{M: nn.DenseMap{W: w}}, Inputs: []int{out}, Shape: []int{rows}, Name: "directions"})
}

// planeNorms intersects the bounds of the output difference (value out)
// of net with those of its copy in the directions node addDirections
// appended (k directions, none for k < 2), makes that value net's
// Output, and returns the bound of each plane's polygon (polygonNorm).
func (pg *pairGraph) planeNorms(net *GraphNet, out, k int) []float64 {
	if out == len(pg.g.Nodes) {
		return nil
	}
	d, m := net.Values[out], net.Output
	n := len(d)
	for i := range d {
		d[i] = d[i].Intersect(m[i])
	}
	net.Output = d
	r := make([]float64, n/2)
	h := make([]float64, 2*k)
	for p := range r {
		for t := range k {
			c := m[n+p*k+t]
			h[t], h[k+t] = c.Hi, -c.Lo
		}
		r[p], _ = polygonNorm(h)
	}
	return r
}

// pairGraph is the combined graph of a pair (see GraphPairBounds) with the
// box of its input: x1 and x2 are the values of the two inputs, and value
// v > 0 of g1 (g2) is value v + off1 (v + off2).
//
// A difference graph (newDiffGraph) sets zmap, with and dmap instead.
type pairGraph struct {
	g          *nn.Graph
	box        []Interval
	x1, x2     int
	off1, off2 int
	zmap       []int
	with, dmap []int
	// weightTerms marks the values (M2 - M1) z1 of a difference graph.
	weightTerms []bool
	// chains makes a difference graph write the differences of affine
	// nodes as chainDiff nodes (graphchains.go); ysum maps a difference d
	// to a value equal to z + d, z the first network's value paired with d.
	chains bool
	ysum   map[int]int
}

// newPairGraph builds the combined graph of g1 and g2 on in.
func newPairGraph(g1, g2 *nn.Graph, in spec.Inputs) *pairGraph {
	n := g1.InputSize()
	x := boxIntervals(in.Box)
	pg := &pairGraph{g: &nn.Graph{InputShape: slices.Clone(g1.InputShape)}, box: x}
	half := func(from int) int { return pg.half(n, from, g1.InputShape) }
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

// diffBounds returns the pair bounds of the difference graph's bounds net.
func (pg *pairGraph) diffBounds(net *GraphNet) *GraphPairBounds {
	n1, n2 := len(pg.zmap), len(pg.dmap)
	v1, v2 := make([][]Interval, n1), make([][]Interval, n2)
	for v := range n1 {
		v1[v] = net.Values[pg.zmap[v]]
	}
	for v := range n2 {
		v2[v] = addAll(v1[pg.with[v]], net.Values[pg.dmap[v]])
	}
	return &GraphPairBounds{
		Diff:     net.Values[pg.dmap[n2-1]],
		Net1:     &GraphNet{Values: v1, Output: v1[n1-1]},
		Net2:     &GraphNet{Values: v2, Output: v2[n2-1]},
		Combined: net,
	}
}

// half appends the selection of n inputs from the first and returns its
// value.
func (pg *pairGraph) half(n, first int, shape []int) int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = first + i
	}
	return pg.add(nn.Node{Op: &nn.Affine{M: &nn.Gather{N: pg.g.InputSize(), Index: idx}}, Inputs: []int{0}, Shape: shape})
}

// remap returns the values m[v] of the values vs.
func (pg *pairGraph) remap(vs, m []int) []int {
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = m[v]
	}
	return out
}

// diffNode appends the nodes giving the difference of op2 and op1 on the
// values z of g1 and d of the differences, and returns its value; zOut is
// the value of op1's node.
func (pg *pairGraph) diffNode(op1, op2 nn.Op, z, d []int, zOut int, shape []int) (int, error) {
	fail := fmt.Errorf("bounds: operations %s and %s differ", op1.Describe(), op2.Describe())
	switch o1 := op1.(type) {
	case *nn.Affine:
		o2, ok := op2.(*nn.Affine)
		if !ok {
			return 0, fail
		}
		dm, zero, err := linearDiff(o1.M, o2.M)
		if err != nil {
			return 0, err
		}
		db, bZero, ok := exactDiff(o1.B, o2.B, o1.M.Out())
		if !ok {
			return 0, fmt.Errorf("bounds: a bias difference is not exact")
		}
		if bZero {
			db = nil
		}
		v := pg.add(nn.Node{Op: &nn.Affine{M: o2.M, B: db}, Inputs: d, Shape: shape})
		if zero {
			return v, nil
		}
		u := pg.add(nn.Node{Op: &nn.Affine{M: dm}, Inputs: z, Shape: shape})
		pg.weightTerms = append(pg.weightTerms, make([]bool, u+1-len(pg.weightTerms))...)
		pg.weightTerms[u] = true
		old := pg.add(nn.Node{Op: nn.Add{}, Inputs: []int{v, u}, Shape: shape})
		if !pg.chains {
			return old, nil
		}
		return pg.chainNode(o2, z[0], d[0], zOut, old, shape), nil
	case nn.Act:
		o2, ok := op2.(nn.Act)
		if !ok {
			return 0, fail
		}
		if o1.Act.Kind == nn.Identity && o2.Act.Kind == nn.Identity {
			return d[0], nil
		}
		return pg.pairNode(pairAct{o1.Act, o2.Act}, z[0], d[0], true, shape), nil
	case *nn.MaxPool:
		o2, ok := op2.(*nn.MaxPool)
		if !ok || o1.Pool2D != o2.Pool2D {
			return 0, fail
		}
		return pg.add(nn.Node{Op: pairMax{o1.Windows()}, Inputs: []int{z[0], d[0]}, Shape: shape}), nil
	case nn.Add:
		if o2, ok := op2.(nn.Add); !ok || o1 != o2 {
			return 0, fail
		}
		return pg.add(nn.Node{Op: o1, Inputs: d, Shape: shape}), nil
	case nn.Concat:
		if _, ok := op2.(nn.Concat); !ok {
			return 0, fail
		}
		return pg.add(nn.Node{Op: o1, Inputs: d, Shape: shape}), nil
	case nn.Unary:
		if o2, ok := op2.(nn.Unary); !ok || o1 != o2 {
			return 0, fail
		}
		if o1.F == nn.Reciprocal {
			return pg.reciprocalDiff(zOut, d[0], shape), nil
		}
		return pg.add(nn.Node{Op: pairUnary{o1}, Inputs: []int{z[0], d[0]}, Shape: shape}), nil
	case nn.Mul:
		if _, ok := op2.(nn.Mul); !ok {
			return 0, fail
		}
		return pg.mulDiff(z, d, shape), nil
	case roundOff:
		o2, ok := op2.(roundOff)
		if !ok {
			return 0, fail
		}
		return pg.roundDiff(o1, o2, z, d, shape), nil
	}
	return 0, fail
}
