package bounds

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Bound propagation on graphs (nn.Graph): every value of a DAG of
// structured operations enclosed on a box.
//
// Values are bounded in topological order. Each value first gets the image
// of its node on the bounds of its inputs (interval arithmetic, centre and
// radius through an affine map). A value read by a nonlinear node (Act,
// Quantise, MaxPool) whose relaxation depends on its bounds (a neuron
// straddling a kink, any quantiser or max pool input), and the graph's
// output, are then bounded by back-substitution (graphback.go) through the
// relaxations of the nonlinear nodes below, and the two enclosures
// intersected. GraphOptions.Intermediate chooses how far back the
// intermediate values are back-substituted; the output always goes to the
// input.

// GraphIntermediate says how GraphSingle bounds the values read by
// nonlinear nodes.
type GraphIntermediate int

const (
	// IntermediateBacksub back-substitutes them to the input.
	IntermediateBacksub GraphIntermediate = iota
	// IntermediateWindow back-substitutes them through at most
	// GraphOptions.Window layers of nonlinear nodes, then takes the
	// interval bounds of the values reached.
	IntermediateWindow
	// IntermediateInterval takes their interval bounds only.
	IntermediateInterval
	// IntermediateAdaptive back-substitutes them through Window layers,
	// then, for the entries whose relaxation still depends on their
	// bounds, through twice as many, and so on to the input.
	IntermediateAdaptive
)

var intermediateNames = [...]string{"backsub", "window", "interval", "adaptive"}

// String returns "backsub", "window", "interval" or "adaptive".
func (m GraphIntermediate) String() string {
	if m < 0 || int(m) >= len(intermediateNames) {
		return fmt.Sprintf("GraphIntermediate(%d)", int(m))
	}
	return intermediateNames[m]
}

// GraphOptions are the method settings of GraphSingle and GraphPair.
type GraphOptions struct {
	// Intermediate is how the values read by nonlinear nodes are bounded.
	Intermediate GraphIntermediate
	// Window is the number of layers of nonlinear nodes crossed by
	// IntermediateWindow, and first crossed by IntermediateAdaptive (at
	// least 1).
	Window int
	// Batch is the number of rows back-substituted together: memory grows
	// with Batch times the sizes of the values.
	Batch int
	// Combined makes GraphPair bound a pair through the combined graph
	// even when the graphs share their structure (then, by default, it
	// bounds their differences node by node: graphdiff.go).
	Combined bool
	// Workers is the number of goroutines (0: GOMAXPROCS). The bounds do
	// not depend on it.
	Workers int
	// Optimise, with Iterations > 0, lowers the output's bounds by that
	// many steps of optimised lines on its rows (graphslopes.go), each
	// step a back-substitution of the rows: never looser. Off by default:
	// on the trained CIFAR ResNet's FB-8 pair it narrowed the output by
	// 0.3 % for about 10 s of CPU (docs/notes/2026-12-graphs-cifar.md).
	Optimise OptimiseSettings
	// Planar, if at least 2, makes GraphPair also bound the output
	// difference in that many directions of each plane of two outputs
	// (2p, 2p+1), and GraphPairBounds.Norm2 take the norm of each plane's
	// polygon, as PairBounds.Norm2Planar does (never looser than the norm
	// of the enclosures; 2 Planar more rows per plane of the output).
	Planar int

	// IntervalWeightTerms makes GraphPair bound the terms (M2 - M1) z1 of
	// a difference graph (graphdiff.go) by interval arithmetic (centre and
	// radius) in the bounds of intermediate values, rather than
	// back-substitute them: cheaper rows, looser bounds. The output's
	// bounds always back-substitute them.
	IntervalWeightTerms bool
	// AlignQuantisers makes GraphPair bound through the difference graph
	// also a pair where one graph has quantisers the other lacks (an int8
	// QDQ copy of a float graph: graphalign.go) rather than through the
	// combined graph. Off by default: where rounding dominates the
	// difference both are loose, and the difference graph costs more.
	AlignQuantisers bool
	// Float32 makes every enclosure also hold the values of any float32
	// evaluation of the graphs (graphfloat32.go): the input rounded to
	// float32, every operation rounded, in any order of summation.
	Float32 bool
	// Log, if not nil, receives a line per value bounded by
	// back-substitution: its node, size, rows and time.
	Log io.Writer

	noBands bool // back-substitute whole values (for the tests)
	allRows bool // back-substitute the rows reluRowsNeeded skips (for the tests)
	// reference makes back-substitution take its plain loops rather than
	// the faster ones (for the tests: the bounds must be the same to the
	// bit).
	reference bool
}

// DefaultGraphOptions returns the default settings: back-substitution to
// the input for every value, batches of 16 rows, GOMAXPROCS workers
// (Window 1 for the other methods).
func DefaultGraphOptions() GraphOptions {
	return GraphOptions{Intermediate: IntermediateBacksub, Window: 1, Batch: 16}
}

// Validate reports a setting out of range, naming it.
func (o GraphOptions) Validate() error {
	switch {
	case o.Intermediate < IntermediateBacksub || o.Intermediate > IntermediateAdaptive:
		return fmt.Errorf("bounds: GraphOptions.Intermediate is %v: %w", o.Intermediate, ErrOptions)
	case (o.Intermediate == IntermediateWindow || o.Intermediate == IntermediateAdaptive) && o.Window < 1:
		return fmt.Errorf("bounds: GraphOptions.Window is %d, want at least 1: %w", o.Window, ErrOptions)
	case o.Batch < 1:
		return fmt.Errorf("bounds: GraphOptions.Batch is %d, want at least 1: %w", o.Batch, ErrOptions)
	case o.Planar == 1 || o.Planar < 0:
		return fmt.Errorf("bounds: GraphOptions.Planar is %d, want 0 or at least 2: %w", o.Planar, ErrOptions)
	case o.Workers < 0:
		return fmt.Errorf("bounds: GraphOptions.Workers is %d, want 0 or more: %w", o.Workers, ErrOptions)
	}
	return nil
}

// GraphNet holds sound bounds of every value of a graph on a box:
// Values[v] encloses value v (0 the input, k+1 node k's output) and
// Output, the last value, the graph's output.
type GraphNet struct {
	Values [][]Interval
	Output []Interval
	// Rows is the number of rows back-substituted (each an upper or a
	// lower bound of one entry of a value).
	Rows int
}

// GraphSingle returns sound bounds of every value of g on box.
func GraphSingle(g *nn.Graph, box spec.Box, opts GraphOptions) (*GraphNet, error) {
	return GraphSingleContext(context.Background(), g, box, opts)
}

// GraphSingleContext is GraphSingle stopped by ctx: once ctx is done it
// returns ctx's error (wrapped) after at most one batch of rows per
// worker.
func GraphSingleContext(ctx context.Context, g *nn.Graph, box spec.Box, opts GraphOptions) (*GraphNet, error) {
	if err := checkGraph(g, box, "graph"); err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if !opts.Float32 {
		return propagateGraph(ctx, g, boxIntervals(box), opts, nil)
	}
	h, vmap := float32Graph(g)
	net, err := propagateGraph(ctx, h, boxIntervals(box), opts, nil)
	if err != nil {
		return nil, err
	}
	return net.remap(vmap), nil
}

// checkGraph validates g and box and that they fit.
func checkGraph(g *nn.Graph, box spec.Box, name string) error {
	if err := box.Validate(); err != nil {
		return err
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("bounds: %s: %w", name, err)
	}
	if g.InputSize() != box.Dim() {
		return fmt.Errorf("bounds: %s takes %d inputs, box has %d: %w", name, g.InputSize(), box.Dim(), nn.ErrDimension)
	}
	return nil
}

// propagateGraph bounds the values of the valid graph g on the box in;
// the rows of values other than the output concretise the values marked in
// cut (nil: none). Once ctx is done it returns ctx's error, wrapped.
func propagateGraph(ctx context.Context, g *nn.Graph, in []Interval, opts GraphOptions, cut []bool) (*GraphNet, error) {
	nv := len(g.Nodes) + 1
	b := &graphBack{ctx: ctx, g: g, vals: make([][]Interval, nv), mags: make([][]float64, nv), magSum: make([]float64, nv),
		rel: make([]*graphRelax, len(g.Nodes)), abs: make([]nn.Linear, len(g.Nodes)),
		absMag: make([][]float64, len(g.Nodes)), convT: make([]*convT, len(g.Nodes)), level: make([]int, nv), noBands: opts.noBands, allRows: opts.allRows, reference: opts.reference, cut: cut,
		refined: make([][]uint8, nv)}
	readers := g.Readers()
	net := &GraphNet{}
	workers := opts.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	b.setBounds(0, in)
	for k, node := range g.Nodes {
		v := k + 1
		ins := make([][]Interval, len(node.Inputs))
		for i, u := range node.Inputs {
			ins[i] = b.vals[u]
			b.level[v] = max(b.level[v], b.level[u])
		}
		if _, round := node.Op.(roundOff); nonlinear(node.Op) && !round {
			b.level[v]++
		}
		b.rel[k] = nodeRelax(node.Op, ins) // nil for a linear node
		if a, ok := node.Op.(*nn.Affine); ok {
			b.abs[k] = a.M.AbsMap()
			b.prepare(k)
		}
		x := nodeImage(node.Op, b.abs[k], ins)
		b.vals[v] = x // the relaxations below read their inputs only
		net.Rows += tighten(b, v, x, readers[v], v == nv-1, opts, workers)
		if v == nv-1 && opts.Optimise.Iterations > 0 {
			net.Rows += optimiseOutput(b, v, x, opts, workers)
		}
		if err := ctx.Err(); err != nil { // rows left out of a cancelled batch read +Inf
			return nil, fmt.Errorf("bounds: stopped at value %d of %d: %w", v, nv-1, err)
		}
		b.setBounds(v, x)
	}
	net.Values, net.Output = b.vals, b.vals[nv-1]
	return net, nil
}

// tighten bounds the entries of value v (bounds x, updated) that its
// readers' relaxations depend on by back-substitution as opts says (to
// the input for the output, all set), and returns the number of rows
// back-substituted. The adaptive method goes back through window layers,
// then twice as many, and so on to the input, each time for the entries
// still needed; after a window that leaves more than nine tenths of them,
// straight to the input.
func tighten(b *graphBack, v int, x []Interval, readers []int, all bool, opts GraphOptions, workers int) int {
	rows := tightRows(b, v, readers, x, all)
	window := opts.Window
	switch {
	case all || opts.Intermediate == IntermediateBacksub:
		window = b.level[v]
	case opts.Intermediate == IntermediateInterval:
		return 0
	}
	total := 0
	for len(rows) > 0 {
		start := time.Now()
		stop := max(0, b.level[v]-window)
		n := refineSides(b, v, x, rows, readers, stop, opts.Batch, workers)
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "value %5d  %-22s  size %6d  rows %6d  level %3d  stop %3d  %8.3fs\n",
				v, b.g.Nodes[v-1].Op.Describe(), len(x), n, b.level[v], stop, time.Since(start).Seconds())
		}
		total += n
		if stop == 0 || opts.Intermediate != IntermediateAdaptive {
			break
		}
		window *= 2
		next := tightRows(b, v, readers, x, false)
		if 10*len(next) > 9*len(rows) { // a window that settles few entries: go to the input
			window = b.level[v]
		}
		rows = next
	}
	return total
}

// tightRows returns the rows that bound the entries of value v (bounds x)
// that a nonlinear reader's relaxation depends on (all of them when all
// is set, for the output): an upper and a lower bound of each.
func tightRows(b *graphBack, v int, readers []int, x []Interval, all bool) []backRow {
	var rows []backRow
	relu := false
	if a, ok := b.g.Nodes[v-1].Op.(nn.Act); ok && !all && !b.allRows {
		relu = a.Act.Kind == nn.ReLU
	}
	for i, xi := range x {
		need := all
		for _, k := range readers {
			node := b.g.Nodes[k]
			switch {
			case need:
			case isPair(node.Op) && node.Inputs[1] == v && node.Inputs[0] < v:
				need = pairNeedsTight(node.Op, b.vals[node.Inputs[0]][i], xi)
			case isPair(node.Op):
				need = pairNeedsTight(node.Op, xi, Point(0))
			default:
				need = needsTight(node.Op, xi)
			}
		}
		if !need {
			continue
		}
		if relu {
			up, low := reluRowsNeeded(b, b.g.Nodes[v-1].Inputs[0], i)
			if up {
				rows = append(rows, backRow{i, 1})
			}
			if low {
				rows = append(rows, backRow{i, -1})
			}
			continue
		}
		rows = append(rows, backRow{i, 1}, backRow{i, -1})
	}
	// Batches of neighbouring rows of the planes (all channels) keep the
	// coefficients on narrow bands of rows (graphback.go).
	if s := b.g.Shape(v); len(s) == 3 {
		plane := s[1] * s[2]
		slices.SortStableFunc(rows, func(a, c backRow) int { return cmp.Compare(a.i%plane, c.i%plane) })
	}
	return rows
}

// reluRowsNeeded reports whether back-substitution could tighten the
// upper and the lower bound of entry i of the output of a ReLU reading
// value u. It could not where u_i <= 0 (the output is 0), nor on a side
// of u_i already back-substituted to the input: through the ReLU's lines
// that row's linear form gives at best relu of u_i's bound on that side
// (an upper line is at least relu(hi) at hi; a lower line is at most 0
// where u_i may be negative, and u_i itself where it is not), which the
// output's enclosure, the image of u_i's, already holds.
func reluRowsNeeded(b *graphBack, u, i int) (up, low bool) {
	if b.vals[u][i].Hi <= 0 {
		return false, false
	}
	var done uint8
	if b.refined[u] != nil {
		done = b.refined[u][i]
	}
	return done&refinedUp == 0, done&refinedLow == 0
}

// The sides of an entry back-substituted to the input (graphBack.refined).
const (
	refinedUp uint8 = 1 << iota
	refinedLow
)

// refineSides refines the rows of value v as refine does, but bounds an
// entry whose readers all have a kink at 0 only (ReLU, leaky ReLU, or
// their pair) on the side more likely to settle it first (the upper bound
// when it straddles 0 mostly below), and on the other side only if it
// still straddles 0. It returns the number of rows back-substituted.
func refineSides(b *graphBack, v int, x []Interval, rows []backRow, readers []int, stop, batch, workers int) int {
	if !zeroKinks(b, v, readers) {
		refine(b, v, x, rows, stop, batch, workers)
		return len(rows)
	}
	var first, second []backRow
	for _, r := range rows {
		xi := x[r.i]
		if (r.sign > 0) == (-xi.Lo > xi.Hi) {
			first = append(first, r)
		} else {
			second = append(second, r)
		}
	}
	refine(b, v, x, first, stop, batch, workers)
	still := second[:0]
	for _, r := range second {
		if x[r.i].Straddles() {
			still = append(still, r)
		}
	}
	refine(b, v, x, still, stop, batch, workers)
	return len(first) + len(still)
}

// zeroKinks reports whether every reader of value v is a ReLU or leaky
// ReLU, or the pair of two, reading v as the first network's value.
func zeroKinks(b *graphBack, v int, readers []int) bool {
	kink0 := func(a nn.Activation) bool { return a.Kind == nn.ReLU || a.Kind == nn.LeakyReLU }
	for _, k := range readers {
		node := b.g.Nodes[k]
		switch op := node.Op.(type) {
		case nn.Act:
			if !kink0(op.Act) {
				return false
			}
		case pairAct:
			if node.Inputs[0] != v || !kink0(op.act1) || !kink0(op.act2) {
				return false
			}
		default:
			if nonlinear(op) {
				return false
			}
		}
	}
	return len(readers) > 0
}

// refine intersects the bounds x of value v with those of the
// back-substituted rows.
func refine(b *graphBack, v int, x []Interval, rows []backRow, stop, batch, workers int) {
	up := b.upperRows(v, rows, stop, batch, workers)
	if stop == 0 && b.refined[v] == nil {
		b.refined[v] = make([]uint8, len(x))
	}
	for r, row := range rows {
		if stop == 0 {
			side := refinedUp
			if row.sign < 0 {
				side = refinedLow
			}
			b.refined[v][row.i] |= side
		}
		x[row.i] = narrow(x[row.i], row, up[r])
	}
}

// narrow returns x intersected with the bound up of its row.
func narrow(x Interval, row backRow, up float64) Interval {
	if row.sign > 0 {
		return x.Intersect(Interval{x.Lo, up})
	}
	return x.Intersect(Interval{-up, x.Hi})
}

// optimiseOutput intersects the bounds x of the output v with those of
// its rows back-substituted with optimised lines (graphslopes.go), and
// returns the number of rows back-substituted.
func optimiseOutput(b *graphBack, v int, x []Interval, opts GraphOptions, workers int) int {
	rows := make([]backRow, 0, 2*len(x))
	up := make([]float64, 0, 2*len(x))
	for i, xi := range x {
		rows = append(rows, backRow{i, 1}, backRow{i, -1})
		up = append(up, xi.Hi, -xi.Lo)
	}
	b.optimiseRows(v, rows, up, opts.Optimise, opts.Batch, workers)
	for r, row := range rows {
		x[row.i] = narrow(x[row.i], row, up[r])
	}
	return (opts.Optimise.Iterations + 1) * len(rows)
}
