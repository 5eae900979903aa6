package verify

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Decide decides whether g is within the tolerance tol of f on the input
// pairs in (x in in.Box, g fed in.X2(x)): Holds if bound propagation
// proves it on every box of a partition of in.Box, Violated with an input
// where it fails (re-evaluated by nn.Network.Eval), or Unknown when the
// node limit, ctx's deadline or its cancellation stops the search first
// (Result.Reason). nil opts means DefaultOptions().
//
// It returns an error for invalid networks, inputs, tolerance or options;
// how the search ended is always the status, never an error. Independent
// pairings are not supported.
func Decide(ctx context.Context, f, g *nn.Network, in spec.Inputs, tol spec.Tolerance, opts *Options) (*Result, error) {
	start := time.Now()
	o := DefaultOptions()
	if opts != nil {
		o = *opts
	}
	if err := check(f, g, in, tol, o); err != nil {
		return nil, err
	}
	d := newDecider(f, g, in, tol, o)
	res, err := d.run(ctx)
	if err != nil {
		return nil, err
	}
	res.Inputs, res.Tolerance = in.Clone(), tol.Clone()
	res.Time = time.Since(start)
	res.Seconds = res.Time.Seconds()
	return res, nil
}

// check validates the arguments of Decide.
func check(f, g *nn.Network, in spec.Inputs, tol spec.Tolerance, o Options) error {
	if err := checkPair(f, g, in, o, true); err != nil {
		return err
	}
	if err := tol.Validate(f.OutputSize()); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	return nil
}

// checkPair validates the networks, inputs and options of a decision,
// and with dense that the networks have no structured layers.
func checkPair(f, g *nn.Network, in spec.Inputs, o Options, dense bool) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if in.Pairing == spec.Independent {
		return fmt.Errorf("verify: independent inputs are not supported (want same or quantised): %w", spec.ErrInputs)
	}
	for i, n := range []*nn.Network{f, g} {
		if n == nil {
			return fmt.Errorf("verify: network %d is nil: %w", i+1, nn.ErrDimension)
		}
		if err := n.Validate(); err != nil {
			return fmt.Errorf("verify: network %d: %w", i+1, err)
		}
		if err := n.RequireDense("verify"); dense && err != nil {
			return fmt.Errorf("verify: network %d: %w", i+1, err)
		}
		if n.InputSize() != in.Box.Dim() {
			return fmt.Errorf("verify: network %d takes %d inputs, box has %d: %w", i+1, n.InputSize(), in.Box.Dim(), nn.ErrDimension)
		}
	}
	if f.OutputSize() != g.OutputSize() {
		return fmt.Errorf("verify: network 1 has %d outputs, network 2 has %d: %w", f.OutputSize(), g.OutputSize(), nn.ErrDimension)
	}
	return nil
}

// decider holds one decision's question and state.
type decider struct {
	f, g      *nn.Network
	in        spec.Inputs
	tol       spec.Tolerance
	opts      Options
	att       *attacker
	m         int       // outputs
	compared  []int     // the outputs the tolerance compares
	colWeight []float64 // per input, sum of |first-layer weights| of f and g

	queue     nodeQueue
	nodes     int
	openVol   float64
	closedMag []float64 // per output, the largest bound of the boxes it was proved on
	closedMax float64   // for spec.Norm2, the largest norm bound of the proved boxes
	stuck     []*node   // boxes too narrow to halve, unsettled
	// byDiff bounds g through f and the difference (closeCopy).
	byDiff bool
	worst  []float64
	worstV float64
	// goneOn counts the optimised passes that went on past their check
	// before the last layers (decider.goal), settled those that then
	// settled their node: Options.ContinueWinRate's record, updated
	// between batches only.
	goneOn, settled int

	// forward holds *bounds.ForwardDiff workspaces, one per goroutine in
	// use; nil when the pair or the pairing is not supported by it.
	forward *sync.Pool
}

// newDecider returns the decider of a validated question.
func newDecider(f, g *nn.Network, in spec.Inputs, tol spec.Tolerance, o Options) *decider {
	m := f.OutputSize()
	d := &decider{f: f, g: g, in: in, tol: tol, opts: o, m: m, compared: tol.Compared(m),
		att: &attacker{f: f, g: g, in: in, tol: tol}, closedMag: make([]float64, m), worstV: -1, byDiff: closeCopy(f, g)}
	if o.Forward {
		d.forward = forwardPool(f, g, in)
	}
	d.colWeight = make([]float64, in.Box.Dim())
	for _, n := range []*nn.Network{f, g} {
		n.Layers[0].AddAbsColumnSums(d.colWeight)
	}
	return d
}

// run searches the tree, batch by batch.
func (d *decider) run(ctx context.Context) (*Result, error) {
	open := d.compared
	if d.tol.Norm == spec.Norm2 {
		open = d.tol.Compared(d.m) // every output
	}
	mag := make([]float64, d.m)
	for k := range mag {
		mag[k] = math.Inf(1)
	}
	heap.Push(&d.queue, &node{lo: d.in.Box.Lo, hi: d.in.Box.Hi, open: open, mag: mag, prio: math.Inf(1), vol: 1})
	d.openVol = 1
	next := 1
	for d.queue.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return d.result(Unknown, stopReason(err), nil), nil
		}
		k := min(d.opts.Batch, d.queue.Len())
		if d.opts.MaxNodes > 0 {
			if d.nodes >= d.opts.MaxNodes {
				return d.result(Unknown, NodeLimit, nil), nil
			}
			k = min(k, d.opts.MaxNodes-d.nodes)
		}
		batch := make([]*node, k)
		for i := range batch {
			batch[i] = heap.Pop(&d.queue).(*node)
		}
		outs := processBatch(ctx, d.opts.Workers, batch, func(n *node) *outcome {
			if o := d.process(ctx, n); o.err == nil || ctx.Err() == nil {
				return o
			}
			return nil // cut short by ctx: as if not begun
		})
		for i, o := range outs {
			if o == nil { // ctx ended first: the node stays queued
				heap.Push(&d.queue, batch[i])
				continue
			}
			d.nodes++
			if o.err != nil {
				return nil, o.err
			}
			if v := d.merge(batch[i], o, &next); v != nil {
				for j, n := range batch[i:] { // unsettled: their bounds count
					if j > 0 && outs[i+j] != nil {
						d.nodes++
					}
					heap.Push(&d.queue, n)
				}
				return d.result(Violated, NoReason, v), nil
			}
		}
		if d.opts.Progress != nil {
			d.opts.Progress(Progress{Nodes: d.nodes, Open: d.openVol, Bound: d.bound(), Found: d.found()})
		}
	}
	if len(d.stuck) > 0 {
		return d.result(Unknown, Precision, nil), nil
	}
	return d.result(Holds, NoReason, nil), nil
}

// merge records the outcome o of node n, queueing its children, and
// returns the counterexample if o found one.
func (d *decider) merge(n *node, o *outcome, next *int) *Point {
	if o.wentOn {
		d.goneOn++
		if len(o.open) == 0 {
			d.settled++
		}
	}
	if o.ratio > d.worstV {
		d.worst, d.worstV = o.worst, o.ratio
	}
	if o.violation != nil {
		return o.violation
	}
	d.openVol -= n.vol
	for _, k := range o.closed {
		d.closedMag[k] = max(d.closedMag[k], o.mag[k])
	}
	if d.tol.Norm == spec.Norm2 && len(o.closed) > 0 {
		d.closedMax = max(d.closedMax, normUp(o.mag, o.closed))
	}
	if len(o.open) == 0 {
		return nil
	}
	d.openVol += n.vol
	if o.split < 0 {
		d.stuck = append(d.stuck, &node{lo: n.lo, hi: n.hi, open: o.open, mag: o.mag, vol: n.vol})
		return nil
	}
	for _, c := range d.children(n, o, o.split, next) {
		heap.Push(&d.queue, c)
	}
	return nil
}

// leaves calls visit on every unsettled leaf (queued or stuck).
func (d *decider) leaves(visit func(*node)) {
	for _, n := range d.queue {
		visit(n)
	}
	for _, n := range d.stuck {
		visit(n)
	}
}

// outputBounds returns, per output, the largest bound of |g_k - f_k| over
// the leaves (proved and unsettled): a bound on the whole box.
func (d *decider) outputBounds() []float64 {
	out := append([]float64(nil), d.closedMag...)
	d.leaves(func(n *node) {
		for _, k := range n.open {
			out[k] = max(out[k], n.mag[k])
		}
	})
	return out
}

// bound returns the certified bound of the measure over the box.
func (d *decider) bound() float64 {
	if d.tol.Norm == spec.Norm2 {
		b := d.closedMax
		d.leaves(func(n *node) { b = max(b, normUp(n.mag, n.open)) })
		return b
	}
	b := 0.0
	ob := d.outputBounds()
	for _, k := range d.compared {
		b = max(b, ob[k])
	}
	return b
}

// found returns the measure at the worst point so far (0 if none).
func (d *decider) found() float64 {
	if d.worst == nil {
		return 0
	}
	p, _ := d.point(d.worst)
	return p.Measure
}

// result returns the result with status s.
func (d *decider) result(s Status, r Reason, cex *Point) *Result {
	res := &Result{Status: s, Reason: r, Bound: d.bound(), OutputBounds: d.outputBounds(), Counterexample: cex, Nodes: d.nodes}
	if d.tol.Norm != spec.Norm2 {
		keep := make([]float64, d.m)
		for _, k := range d.compared {
			keep[k] = res.OutputBounds[k]
		}
		res.OutputBounds = keep
	}
	res.Worst = cex
	if cex == nil && d.worst != nil {
		res.Worst, _ = d.point(d.worst)
	}
	return res
}

// nodeQueue is a max-heap of nodes: the suspect ones first, by their
// parent's attack ratio, then by prio; ties to the smaller id.
type nodeQueue []*node

func (q nodeQueue) Len() int { return len(q) }
func (q nodeQueue) Less(i, j int) bool {
	if q[i].suspect != q[j].suspect {
		return q[i].suspect > q[j].suspect
	}
	if q[i].prio != q[j].prio {
		return q[i].prio > q[j].prio
	}
	return q[i].id < q[j].id
}
func (q nodeQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *nodeQueue) Push(x any)   { *q = append(*q, x.(*node)) }
func (q *nodeQueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}
