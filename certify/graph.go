package certify

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// BoundGraph certifies an upper bound on the quantity q of f1(x1) - f2(x2)
// for every input pair of in, for networks given as graphs (nn.Graph:
// residual joins, concatenations, max pools, int8 quantisers anywhere) by
// bound propagation through the graphs (bounds.GraphPair), refined by
// splitting the input box, and reports the largest error observed at
// actual inputs (search.MaxErrorGraph) next to it. The SDP of the paper is
// built for chains of layers and is not used: Certificate.SDPSkipped says
// so. Chains should go to Bound, which has the SDP and the tuned chain
// propagation.
//
// A cheap first pass of bound propagation over the whole input set (the
// values read by nonlinear nodes bounded by intervals) gives the first
// certificate, which a signal does not stop; the search, then the full
// pass over the whole input set (every value back-substituted) run under
// the time budget and ctx, and if the full pass is cut short the first
// bound stands (Certificate.Stopped: StopBudget or StopCancelled);
// otherwise the smaller of the two passes' bounds does. The refinement
// then splits the piece with the largest bound along its widest input
// (relative to the box) only while it pays and fits the time budget
// (graphrefine.go), and Certificate.Stopped says why it stopped. Every
// piece bounded writes a line to Options.Log, and Options.Progress is
// called after the search and after each pass.
// Options.Arith chooses the arithmetic the bound covers (ArithFloat32:
// also float32 evaluation, bounds.GraphOptions.Float32).
func BoundGraph(ctx context.Context, g1, g2 *nn.Graph, in spec.Inputs, q spec.Quantity, opts Options) (*Certificate, error) {
	start := time.Now()
	if err := checkGraphInput(g1, g2, in, q, &opts); err != nil {
		return nil, err
	}
	c := &Certificate{Status: CheckFailed, Inputs: in.Clone(), QC: opts.QC, Quantity: spec.Quantity{Norm: q.Norm, C: slices.Clone(q.C)}, Method: opts.Method, Source: MethodPropagation, Arith: opts.Arith,
		SDPBound: math.Inf(1), Trivial: math.Inf(1),
		SDPSkipped: SDPSkip{Why: SkipGraph}}
	if opts.Arith == ArithFloat32 {
		c.SDPSkipped = SDPSkip{Why: SkipGraphFloat32}
	}
	// The search and the full first pass run under the time budget and
	// the signal; the refinement reads the clock itself (graphRefiner).
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if opts.Refine.TimeBudget > 0 {
		wctx, cancel = context.WithDeadline(ctx, start.Add(opts.Refine.TimeBudget))
	}
	defer cancel()
	t0 := time.Now()
	// The first certificate, a cheap pass (the values read by nonlinear
	// nodes bounded by intervals) that a signal does not stop: it stands
	// if the full pass is cut short.
	first, err := graphPiece(context.WithoutCancel(ctx), g1, g2, in, q, opts.Arith, bounds.IntermediateInterval)
	c.Timing.Propagation = time.Since(t0)
	if err != nil {
		return nil, err
	}
	if err := observeGraph(wctx, g1, g2, in, q, opts, c); err != nil {
		return nil, err
	}
	if opts.Progress != nil {
		opts.Progress(Progress{Bound: first.bound, Observed: c.ObservedError, Pieces: 1})
	}
	t0 = time.Now()
	root, err := graphPiece(wctx, g1, g2, in, q, opts.Arith, bounds.IntermediateBacksub)
	pass := time.Since(t0)
	c.Timing.Propagation += pass
	cut := err != nil
	if cut && wctx.Err() == nil {
		return nil, err
	}
	if cut {
		root = first
	}
	// Both passes enclose the quantity on the same box, and the full one
	// is not always the smaller (8 % above the first on a residual ReLU
	// graph, TestBoundGraphFirstPass): the certificate, and the
	// refinement's start, take the smaller.
	if first.bound < root.bound || math.IsNaN(root.bound) {
		root.bound = first.bound
	}
	c.IntervalBound, c.RootBound = root.bound, root.bound
	r := &graphRefiner{g1: g1, g2: g2, whole: in.Box, q: q, opts: opts, c: c, start: start, pass: pass}
	r.logPiece(1, root.bound)
	pieces := []graphBound{root}
	if cut {
		r.firstOnly(ctx)
	} else {
		pieces = r.run(ctx, root, in.Pairing)
	}
	c.Bounded = r.passes
	c.Bound = 0
	for _, p := range pieces {
		c.Bound = max(c.Bound, p.bound)
	}
	if len(pieces) > 1 {
		for _, p := range pieces {
			c.Pieces = append(c.Pieces, Piece{Lo1: p.in.Box.Lo, Hi1: p.in.Box.Hi, Lo2: p.in.Box.Lo, Hi2: p.in.Box.Hi, Bound: p.bound})
		}
	}
	c.Gammas = Gammas{Gamma: outward.MulUp(c.Bound, c.Bound)}
	c.Time = time.Since(start)
	if math.IsNaN(c.Bound) || math.IsInf(c.Bound, 0) { // an enclosure overflowed: no bound is claimed
		c.Reason = "bound propagation gave no finite bound"
		return c, nil
	}
	c.Status = Certified
	if c.ObservedError > c.Bound {
		checkAttained(c)
	}
	c.Time = time.Since(start)
	return c, nil
}

// observeGraph sets the largest error of q that search.MaxErrorGraph
// finds on in, until ctx is done, and where, in c.
func observeGraph(ctx context.Context, g1, g2 *nn.Graph, in spec.Inputs, q spec.Quantity, opts Options, c *Certificate) error {
	so := search.DefaultOptions()
	so.Samples, so.Seed, so.MaxEvals = opts.Samples, opts.Seed, graphSearchEvals(g1, g2)
	so.Samples, so.MaxCorners = min(so.Samples, so.MaxEvals/4), min(so.MaxCorners, so.MaxEvals/8)
	if so.MaxEvals < in.Box.Dim() && !g1.Quantised() && !g2.Quantised() {
		signAscent(&so)
	}
	t0 := time.Now()
	res, err := search.MaxErrorGraph(ctx, g1, g2, in, q, so)
	c.Timing.Search = time.Since(t0)
	if err != nil && res == nil {
		return err
	}
	c.ObservedError, c.X1, c.X2 = res.Error, res.X1, res.X2
	return nil
}

// graphSearchEvals returns the number of evaluations of the
// observed-error search on graphs: graphSearchMaxEvals, fewer for graphs
// whose evaluation costs more than graphSearchMACs / graphSearchMaxEvals
// multiply-adds (a CIFAR ResNet: about 300), at least
// graphSearchMinEvals. A count of operations, not of seconds, so that
// the result does not depend on the machine.
func graphSearchEvals(g1, g2 *nn.Graph) int {
	macs := float64(graphMACs(g1) + graphMACs(g2))
	return int(max(graphSearchMinEvals, min(graphSearchMaxEvals, graphSearchMACs/max(macs, 1))))
}

// The observed-error search's evaluations (graphSearchEvals).
const (
	graphSearchMaxEvals = 4000
	graphSearchMinEvals = 256
	graphSearchMACs     = 8e9
)

// graphMACs returns the multiply-adds of one evaluation of g's affine
// nodes.
func graphMACs(g *nn.Graph) int {
	n := 0
	for _, node := range g.Nodes {
		a, ok := node.Op.(*nn.Affine)
		if !ok {
			continue
		}
		switch m := a.M.(type) {
		case *nn.Conv2D:
			n += m.Out() * m.KH * m.KW * m.InC / max(m.Groups, 1)
		case nn.DenseMap:
			n += m.In() * m.Out()
		case *nn.RowMap:
			n += m.In() * m.Out() / m.Rows
		default:
			n += m.Out()
		}
	}
	return n
}

// signAscent sets so, whose budget is fewer evaluations than the box has
// inputs, to restarted sign-gradient ascent (search.Options.SignAscent):
// from one corner and graphSignStarts-1 uniform points, each for an equal
// share of the budget, halved since a gradient costs about two
// evaluations. Not for graphs with quantisers: their search walks the
// input grid, and found less on one int8 ball with half the budget.
func signAscent(so *search.Options) {
	so.SignAscent = true
	so.MaxEvals /= 2
	so.Samples, so.MaxCorners, so.Restarts = graphSignStarts-1, 1, graphSignStarts
	so.Iters = max(1, so.MaxEvals/graphSignStarts)
}

// graphSignStarts is the number of sign-gradient ascents of signAscent.
const graphSignStarts = 4

// graphBound is one piece of the input set with its certified bound.
type graphBound struct {
	in    spec.Inputs
	bound float64
}

// graphPiece bounds the quantity on the input set in, in the arithmetic a,
// with the values read by nonlinear nodes bounded by im (the full pass
// back-substitutes them, bounds.IntermediateBacksub; the first
// certificate takes their intervals, bounds.IntermediateInterval), unless
// ctx is done first.
func graphPiece(ctx context.Context, g1, g2 *nn.Graph, in spec.Inputs, q spec.Quantity, a Arith, im bounds.GraphIntermediate) (graphBound, error) {
	bo := bounds.GraphOptionsFor(g1)
	bo.Float32 = a == ArithFloat32
	bo.Intermediate = im
	norm2 := q.C == nil && q.Norm == spec.Norm2
	if norm2 {
		bo.Planar = planarDirections
	}
	pb, err := bounds.GraphPairContext(ctx, g1, g2, in, bo)
	if err != nil {
		return graphBound{}, err
	}
	d := pb.Diff
	if in.Pairing != spec.QuantisedInput && slices.ContainsFunc(d, unbounded) {
		if d, err = ownDiff(ctx, g1, g2, in.Box, bo, d); err != nil {
			return graphBound{}, err
		}
	}
	bound := quantityBound(d, q)
	if norm2 { // the planes' polygons, where tighter than the enclosures
		bound = min(bound, pb.Norm2())
	}
	return graphBound{in: in, bound: bound}, nil
}

// unbounded reports whether an enclosure is not finite.
func unbounded(iv bounds.Interval) bool {
	return math.IsInf(iv.Lo, 0) || math.IsInf(iv.Hi, 0) || math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi)
}

// ownDiff returns the enclosures d of the output differences g2(x2) -
// g1(x1), x1 and x2 in box, where the pair's overflowed (a value of g2
// bounded as g1's plus a difference, such as a variance below zero before
// a square root), replaced by, and elsewhere intersected with, the
// difference of each network's own bounds on box.
func ownDiff(ctx context.Context, g1, g2 *nn.Graph, box spec.Box, bo bounds.GraphOptions, d []bounds.Interval) ([]bounds.Interval, error) {
	n1, err := bounds.GraphSingleContext(ctx, g1, box, bo)
	if err != nil {
		return nil, err
	}
	n2, err := bounds.GraphSingleContext(ctx, g2, box, bo)
	if err != nil {
		return nil, err
	}
	out := make([]bounds.Interval, len(d))
	for i, iv := range d {
		own := n2.Output[i].Sub(n1.Output[i])
		if unbounded(iv) {
			out[i] = own
		} else {
			out[i] = iv.Intersect(own)
		}
	}
	return out, nil
}

// quantityBound returns an upper bound of q over the enclosures d of the
// output differences, rounded outward.
func quantityBound(d []bounds.Interval, q spec.Quantity) float64 {
	switch {
	case q.C != nil:
		lo, hi := 0.0, 0.0
		for j, c := range q.C {
			a, b := outward.MulDown(c, d[j].Lo), outward.MulUp(c, d[j].Hi)
			if c < 0 {
				a, b = outward.MulDown(c, d[j].Hi), outward.MulUp(c, d[j].Lo)
			}
			lo, hi = outward.AddDown(lo, a), outward.AddUp(hi, b)
		}
		return max(-lo, hi)
	case q.Norm == spec.NormInf:
		m := 0.0
		for _, iv := range d {
			m = max(m, iv.Mag())
		}
		return m
	}
	s := 0.0
	for _, iv := range d {
		m := iv.Mag()
		s = outward.AddUp(s, outward.MulUp(m, m))
	}
	return outward.SqrtUp(s)
}

// checkGraphInput reports graphs that do not fit each other or the input
// set, an invalid quantity or invalid options.
func checkGraphInput(g1, g2 *nn.Graph, in spec.Inputs, q spec.Quantity, opts *Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := q.Validate(); err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	if err := in.Validate(); err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	for i, g := range []*nn.Graph{g1, g2} {
		if err := g.Validate(); err != nil {
			return fmt.Errorf("certify: network %d: %w", i+1, err)
		}
		if g.InputSize() != in.Box.Dim() {
			return fmt.Errorf("certify: network %d takes %d inputs, the box has %d: %w", i+1, g.InputSize(), in.Box.Dim(), nn.ErrDimension)
		}
	}
	if g1.OutputSize() != g2.OutputSize() {
		return fmt.Errorf("certify: network 1 has %d outputs, network 2 has %d: %w", g1.OutputSize(), g2.OutputSize(), nn.ErrDimension)
	}
	if q.C != nil && len(q.C) != g1.OutputSize() {
		return fmt.Errorf("certify: C has %d entries for %d outputs: %w", len(q.C), g1.OutputSize(), nn.ErrDimension)
	}
	return nil
}
