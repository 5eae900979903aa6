package verify

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// DecideGraph decides the tolerance tol for networks given as graphs
// (nn.Graph: residual joins, concatenations, max pools, quantisers), by
// branch and bound over the input box: each box is bounded by
// bounds.GraphPair; a box whose difference enclosure meets tol is settled;
// otherwise its centre and the best point of a short search
// (search.MaxErrorGraph) are checked with CheckPointGraph, and the box is
// halved along the input of largest smear (smearCoordinate: how much the
// two networks' outputs change across the box along it), or its widest
// input (relative to the whole box) where no output changes. The box with
// the largest bound is taken first, so Result.Bound falls as the search
// goes on; the tree does not depend on scheduling or the clock (only the
// deadline of ctx and opts.MaxNodes stop it). Options other than MaxNodes,
// Seed and Progress are for chains (Decide) and are ignored.
func DecideGraph(ctx context.Context, f, g *nn.Graph, in spec.Inputs, tol spec.Tolerance, opts *Options) (*Result, error) {
	start := time.Now()
	if opts == nil {
		o := DefaultOptions()
		opts = &o
	}
	if err := checkGraphs(f, g, in, tol); err != nil {
		return nil, err
	}
	d := &graphDecider{f: f, g: g, in: in, tol: tol, opts: opts, whole: in.Box}
	r := d.run(ctx)
	r.Inputs, r.Tolerance = in.Clone(), tol.Clone()
	r.Time = time.Since(start)
	r.Seconds = r.Time.Seconds()
	return r, nil
}

// checkGraphs reports graphs that do not fit each other, the input set or
// the tolerance.
func checkGraphs(f, g *nn.Graph, in spec.Inputs, tol spec.Tolerance) error {
	if err := in.Validate(); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if in.Pairing == spec.Independent {
		return fmt.Errorf("verify: independent inputs of graphs are not decided yet: %w", spec.ErrInputs)
	}
	for i, n := range []*nn.Graph{f, g} {
		if err := n.Validate(); err != nil {
			return fmt.Errorf("verify: network %d: %w", i+1, err)
		}
		if n.InputSize() != in.Box.Dim() {
			return fmt.Errorf("verify: network %d takes %d inputs, the box has %d: %w", i+1, n.InputSize(), in.Box.Dim(), nn.ErrDimension)
		}
	}
	if f.OutputSize() != g.OutputSize() {
		return fmt.Errorf("verify: network 1 has %d outputs, network 2 has %d: %w", f.OutputSize(), g.OutputSize(), nn.ErrDimension)
	}
	if err := tol.Validate(f.OutputSize()); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	return nil
}

// graphDecider is one DecideGraph run.
type graphDecider struct {
	f, g  *nn.Graph
	in    spec.Inputs
	tol   spec.Tolerance
	opts  *Options
	whole spec.Box
	res   Result
	found *Point // the largest measure checked so far
}

// graphNode is an open box with the bound of the box it came from.
type graphNode struct {
	box   spec.Box
	bound float64
	seq   int // creation order: ties are taken oldest first
}

// graphQueue is a max-heap of open boxes by bound.
type graphQueue []graphNode

func (q graphQueue) Len() int { return len(q) }
func (q graphQueue) Less(i, j int) bool {
	if q[i].bound != q[j].bound {
		return q[i].bound > q[j].bound
	}
	return q[i].seq < q[j].seq
}
func (q graphQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *graphQueue) Push(x any)   { *q = append(*q, x.(graphNode)) }
func (q *graphQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}

// run searches the tree and returns the result (Time unset).
func (d *graphDecider) run(ctx context.Context) *Result {
	m := d.f.OutputSize()
	settled := make([]float64, m) // the largest bound of each output over the settled boxes
	q := &graphQueue{{box: d.whole, bound: math.Inf(1)}}
	seq := 1
	finish := func(s Status, why Reason) *Result {
		d.res.Status, d.res.Reason = s, why
		d.res.OutputBounds = slices.Clone(settled)
		_, d.res.Bound, _, _ = d.tol.Judge(make([]float64, m), settled) // rounded up
		for _, n := range *q {
			d.res.Bound = max(d.res.Bound, n.bound)
		}
		d.res.Worst = d.found
		return &d.res
	}
	for q.Len() > 0 {
		switch err := ctx.Err(); {
		case errors.Is(err, context.DeadlineExceeded):
			return finish(Unknown, Timeout)
		case err != nil:
			return finish(Unknown, Cancelled)
		case d.opts.MaxNodes > 0 && d.res.Nodes >= d.opts.MaxNodes:
			return finish(Unknown, NodeLimit)
		}
		n := heap.Pop(q).(graphNode)
		d.res.Nodes++
		lo, hi, err := d.enclose(ctx, n.box)
		if err != nil {
			heap.Push(q, n) // still open: its bound counts in Result.Bound
			if ctx.Err() != nil {
				d.res.Nodes--
				continue // stopped by the deadline or a signal (above)
			}
			return finish(Unknown, Precision)
		}
		_, mhi, _, within := d.tol.Judge(lo, hi)
		if within {
			for k := range settled {
				settled[k] = max(settled[k], max(-lo[k], hi[k]))
			}
			continue
		}
		if p := d.attack(ctx, n.box, d.res.Nodes); p != nil {
			heap.Push(q, graphNode{box: n.box, bound: mhi, seq: seq}) // its bound counts in Result.Bound
			d.res.Counterexample = p
			d.found = p
			return finish(Violated, NoReason)
		}
		a, b, ok := halveAt(n.box, d.smearCoordinate(n.box))
		if !ok {
			a, b, ok = halve(n.box, d.whole)
		}
		if !ok {
			heap.Push(q, graphNode{box: n.box, bound: mhi, seq: seq})
			return finish(Unknown, Precision)
		}
		heap.Push(q, graphNode{box: a, bound: mhi, seq: seq})
		heap.Push(q, graphNode{box: b, bound: mhi, seq: seq + 1})
		seq += 2
		if d.opts.Progress != nil && d.res.Nodes%64 == 0 {
			found := 0.0
			if d.found != nil {
				found = d.found.Measure
			}
			d.opts.Progress(Progress{Nodes: d.res.Nodes, Bound: (*q)[0].bound, Found: found})
		}
	}
	return finish(Holds, NoReason)
}

// enclose returns enclosures [lo_k, hi_k] of g_k(x2) - f_k(x1) over the
// pairs of box, or ctx's error once it is done.
func (d *graphDecider) enclose(ctx context.Context, box spec.Box) (lo, hi []float64, err error) {
	in := d.in
	in.Box = box
	pb, err := bounds.GraphPairContext(ctx, d.f, d.g, in, bounds.GraphOptionsFor(d.f))
	if err != nil {
		return nil, nil, err
	}
	lo, hi = make([]float64, len(pb.Diff)), make([]float64, len(pb.Diff))
	for k, iv := range pb.Diff {
		lo[k], hi[k] = iv.Lo, iv.Hi
	}
	return lo, hi, nil
}

// rootSearchEvals is the number of evaluations of the search on the
// root's box (a fixed count, so that the tree does not depend on the
// machine); the other nodes' searches are short.
const rootSearchEvals = 4000

// attack checks the centre of box and the best point a search finds there
// (seeded by the node's number k; a full one at the root, k = 1, a short
// one elsewhere), and returns the first that CheckPointGraph finds
// Violated, or nil.
func (d *graphDecider) attack(ctx context.Context, box spec.Box, k int) *Point {
	centre := make([]float64, box.Dim())
	for i := range centre {
		centre[i] = box.Lo[i] + (box.Hi[i]-box.Lo[i])/2
	}
	points := [][]float64{centre}
	so := search.DefaultOptions()
	if k == 1 { // the root: the search certify.BoundGraph runs
		so.MaxEvals = rootSearchEvals
		so.Samples, so.MaxCorners = min(so.Samples, so.MaxEvals/4), min(so.MaxCorners, so.MaxEvals/8)
	} else {
		so.Grid, so.Samples, so.MaxCorners, so.Restarts, so.Iters = 0, 16, 16, 1, 20
		so.ZoomStarts, so.ZoomRounds, so.ZoomSamples = 0, 0, 0
	}
	so.Seed = d.opts.Seed + 0x9e3779b97f4a7c15*uint64(k)
	in := d.in
	in.Box = box
	if res, err := search.MaxErrorGraph(ctx, d.f, d.g, in, d.tol.Quantity(), so); err == nil {
		points = append(points, res.X1)
		if x, ok := d.toLevels(res.X1, box); ok {
			points = append(points, x)
		}
	}
	for _, x := range points {
		p, s, err := CheckPointGraph(d.f, d.g, x, d.in.X2(x), d.tol)
		if err != nil {
			continue
		}
		if d.found == nil || p.Measure > d.found.Measure {
			d.found = p
		}
		if s == Violated {
			return p
		}
	}
	return nil
}

// toLevels returns x with each input moved to the level that the input
// quantiser of g (else of f) gives it, where that level lies in box, and
// whether any moved. The search climbs to the steps of a quantised input,
// where the point's enclosure cannot tell the two levels apart (ONNX
// divides in float32, nn.Graph.Eval in float64); the level itself is
// half a step from either edge, so it is judged, and g's input is the
// same there.
func (d *graphDecider) toLevels(x []float64, box spec.Box) ([]float64, bool) {
	q := inputQuantiser(d.g)
	if q == nil {
		q = inputQuantiser(d.f)
	}
	if q == nil {
		return nil, false
	}
	y, moved := slices.Clone(x), false
	for i, v := range x {
		if l := q.Apply(i, v); l != v && l >= box.Lo[i] && l <= box.Hi[i] {
			y[i], moved = l, true
		}
	}
	return y, moved
}

// inputQuantiser returns the quantiser that g applies first to its whole
// input, or nil.
func inputQuantiser(g *nn.Graph) *nn.Quantiser {
	if len(g.Nodes) == 0 || !slices.Equal(g.Nodes[0].Inputs, []int{0}) {
		return nil
	}
	if q, ok := g.Nodes[0].Op.(*nn.Quantise); ok {
		return q.Q
	}
	return nil
}

// smearCoordinate returns the input of box whose two faces are furthest
// apart in the outputs of both networks,
//
//	s_i = sum_j |f_j(x+) - f_j(x-)| + |g_j(x2(x+)) - g_j(x2(x-))|
//
// x+ and x- the centres of the faces of box across input i (the smear of
// input i, width times slope, measured as a secant so that the steps of a
// quantised network count), or -1 when every s_i is 0 or an evaluation
// fails.
func (d *graphDecider) smearCoordinate(box spec.Box) int {
	c := make([]float64, box.Dim())
	for i := range c {
		c[i] = box.Lo[i] + (box.Hi[i]-box.Lo[i])/2
	}
	k, best := -1, 0.0
	x := slices.Clone(c)
	outputs := func(x []float64) ([]float64, error) {
		y1, err := d.f.Eval(x)
		if err != nil {
			return nil, err
		}
		y2, err := d.g.Eval(d.in.X2(x))
		return append(y1, y2...), err
	}
	for i := range c {
		x[i] = box.Hi[i]
		hi, err1 := outputs(x)
		x[i] = box.Lo[i]
		lo, err2 := outputs(x)
		x[i] = c[i]
		if err1 != nil || err2 != nil {
			return -1
		}
		s := 0.0
		for j := range hi {
			s += math.Abs(hi[j] - lo[j])
		}
		if s > best {
			k, best = i, s
		}
	}
	return k
}

// halve splits box in two along its widest input relative to whole.
func halve(box, whole spec.Box) (a, b spec.Box, ok bool) {
	k, widest := -1, 0.0
	for i := range box.Lo {
		if w := whole.Hi[i] - whole.Lo[i]; w > 0 {
			if r := (box.Hi[i] - box.Lo[i]) / w; r > widest {
				k, widest = i, r
			}
		}
	}
	return halveAt(box, k)
}

// halveAt splits box in two at the middle of input k, if k >= 0 and the
// middle lies strictly inside in float64.
func halveAt(box spec.Box, k int) (a, b spec.Box, ok bool) {
	if k < 0 {
		return box, box, false
	}
	mid := box.Lo[k] + (box.Hi[k]-box.Lo[k])/2
	if !(mid > box.Lo[k] && mid < box.Hi[k]) {
		return box, box, false
	}
	a = spec.Box{Lo: slices.Clone(box.Lo), Hi: slices.Clone(box.Hi)}
	b = spec.Box{Lo: slices.Clone(box.Lo), Hi: slices.Clone(box.Hi)}
	a.Hi[k], b.Lo[k] = mid, mid
	return a, b, true
}

// CheckPointGraph is CheckPoint for graphs: f evaluated at x and g at xg
// by nn.Graph.Eval, each exact output enclosed by bound propagation on the
// point (bounds.GraphSingle on the box [x, x], rounded outward), the
// enclosure of the difference judged by c, and both evaluated in float32
// (nn.Graph.EvalFloat32).
func CheckPointGraph(f, g *nn.Graph, x, xg []float64, c Criterion) (*Point, Status, error) {
	yf, err := f.Eval(x)
	if err != nil {
		return nil, Unknown, fmt.Errorf("verify: network 1: %w", err)
	}
	yg, err := g.Eval(xg)
	if err != nil {
		return nil, Unknown, fmt.Errorf("verify: network 2: %w", err)
	}
	ef, err := bounds.GraphSingle(f, spec.Box{Lo: x, Hi: x}, bounds.DefaultGraphOptions())
	if err != nil {
		return nil, Unknown, fmt.Errorf("verify: network 1: %w", err)
	}
	eg, err := bounds.GraphSingle(g, spec.Box{Lo: xg, Hi: xg}, bounds.DefaultGraphOptions())
	if err != nil {
		return nil, Unknown, fmt.Errorf("verify: network 2: %w", err)
	}
	f32, _ := f.EvalFloat32(x)
	g32, _ := g.EvalFloat32(xg)
	return judgePoint(x, xg, yf, yg, ef.Output, eg.Output, f32, g32, c)
}
