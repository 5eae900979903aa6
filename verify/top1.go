package verify

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"time"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Top1Result is the outcome of DecideTop1: Holds when f and g pick the
// same class at every input of the box (certified), Violated with an
// input where they do not (re-evaluated by CheckTop1), Unknown when the
// search stopped first (Reason).
type Top1Result struct {
	Status Status `json:"verdict"`
	Reason Reason `json:"reason,omitempty"`
	// Class is f's class at the centre of the box (float64, first on a
	// tie).
	Class int `json:"class"`
	// Counterexample is set with Violated only.
	Counterexample *Top1Point `json:"counterexample,omitempty"`
	// Nodes counts the boxes bounded.
	Nodes int `json:"nodes"`
	// Open is the fraction of the box's volume left unsettled (0 with
	// Holds).
	Open float64 `json:"open"`
	// Time is the wall-clock time of the decision.
	Time time.Duration `json:"-"`
	// Seconds is Time in seconds, for JSON.
	Seconds float64 `json:"seconds"`
}

// DecideTop1 decides top-1 agreement of f and g on the input pairs in
// (x in in.Box, g fed in.X2(x)): is argmax f(x) = argmax g(X2(x)) for
// every x, a tie in either counting as a disagreement? nil opts means
// DefaultOptions(); the options of the difference's bounds (OptimiseRatio
// and after) are not used.
//
// Branch and bound over the box (top1node.go): on each box, c is f's
// class at its centre, and the box is settled when, for every j != c,
//
//	lower bound of f_c - f_j > 0   and   lower bound of g_c - g_j > 0
//
// on the whole box (both networks keep class c there, which is
// sufficient for agreement), the margins back-substituted through each
// network (bounds.Single on the network followed by the margins, with
// symbolic, then optimised, slopes). Otherwise the box is attacked for an
// input where the classes differ, and split. Every disagreement is
// re-evaluated by CheckTop1 and reported only if it is certain.
//
// The verdict and node count depend on Options.Batch and Options.Seed,
// not on Options.Workers or the scheduling; only the node limit, ctx's
// deadline or its cancellation stop the search early, with Unknown.
// It returns an error for invalid networks, inputs or options;
// independent pairings are not supported. Unlike Decide, it takes
// networks with convolutional layers.
func DecideTop1(ctx context.Context, f, g *nn.Network, in spec.Inputs, opts *Options) (*Top1Result, error) {
	start := time.Now()
	o := DefaultOptions()
	if opts != nil {
		o = *opts
	}
	if err := checkTop1(f, g, in, o); err != nil {
		return nil, err
	}
	t, err := newTop1(f, g, in, o)
	if err != nil {
		return nil, err
	}
	res, err := t.run(ctx)
	if err != nil {
		return nil, err
	}
	res.Time = time.Since(start)
	res.Seconds = res.Time.Seconds()
	return res, nil
}

// checkTop1 validates the arguments of DecideTop1.
func checkTop1(f, g *nn.Network, in spec.Inputs, o Options) error {
	if err := checkPair(f, g, in, o, false); err != nil {
		return err
	}
	if f.OutputSize() < 2 {
		return fmt.Errorf("verify: top-1 agreement needs at least 2 outputs, the networks have %d: %w", f.OutputSize(), nn.ErrDimension)
	}
	return nil
}

// top1 holds one top-1 decision's question and state.
type top1 struct {
	f, g *nn.Network
	in   spec.Inputs
	opts Options
	m    int
	// margF[c] and margG[c] are f and g followed by the margins
	// y_c - y_j, j != c, in increasing j (marginNetwork).
	margF, margG []*nn.Network
	rawG         *nn.Network // g's logits before its output quantiser (rawLast)
	colWeight    []float64   // per input, sum of |first-layer weights| of f and g

	queue   top1Queue
	nodes   int
	openVol float64
	stuck   bool
	class   int
}

// newTop1 returns the state of a validated question.
func newTop1(f, g *nn.Network, in spec.Inputs, o Options) (*top1, error) {
	m := f.OutputSize()
	t := &top1{f: f, g: g, in: in, opts: o, m: m, margF: make([]*nn.Network, m), margG: make([]*nn.Network, m), rawG: rawLast(g)}
	for c := range m {
		var err error
		if t.margF[c], err = marginNetwork(f, c); err != nil {
			return nil, err
		}
		if t.margG[c], err = marginNetwork(g, c); err != nil {
			return nil, err
		}
	}
	t.colWeight = make([]float64, in.Box.Dim())
	for _, n := range []*nn.Network{f, g} {
		n.Layers[0].AddAbsColumnSums(t.colWeight)
	}
	return t, nil
}

// run searches the tree, batch by batch, as decider.run.
func (t *top1) run(ctx context.Context) (*Top1Result, error) {
	root := &top1Node{lo: t.in.Box.Lo, hi: t.in.Box.Hi, vol: 1, prio: math.Inf(-1)}
	t.class = argmax(t.evalF(centre(root.lo, root.hi)))
	heap.Push(&t.queue, root)
	t.openVol = 1
	next := 1
	for t.queue.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return t.result(Unknown, stopReason(err), nil), nil
		}
		k := min(t.opts.Batch, t.queue.Len())
		if t.opts.MaxNodes > 0 {
			if t.nodes >= t.opts.MaxNodes {
				return t.result(Unknown, NodeLimit, nil), nil
			}
			k = min(k, t.opts.MaxNodes-t.nodes)
		}
		batch := make([]*top1Node, k)
		for i := range batch {
			batch[i] = heap.Pop(&t.queue).(*top1Node)
		}
		outs := processBatch(ctx, t.opts.Workers, batch, func(n *top1Node) *top1Outcome { return t.process(ctx, n) })
		for i, o := range outs {
			if o == nil { // ctx ended first: the node stays queued
				heap.Push(&t.queue, batch[i])
				continue
			}
			t.nodes++
			if o.err != nil {
				return nil, o.err
			}
			if o.violation != nil {
				return t.result(Violated, NoReason, o.violation), nil
			}
			t.merge(batch[i], o, &next)
		}
		if t.opts.Progress != nil {
			t.opts.Progress(Progress{Nodes: t.nodes, Open: t.openVol})
		}
	}
	if t.stuck {
		return t.result(Unknown, Precision, nil), nil
	}
	return t.result(Holds, NoReason, nil), nil
}

// merge records the outcome o of node n, queueing its children.
func (t *top1) merge(n *top1Node, o *top1Outcome, next *int) {
	if o.closed {
		t.openVol -= n.vol
		return
	}
	if o.split < 0 {
		t.stuck = true
		return
	}
	for _, c := range t.children(n, o.split) {
		c.id, c.prio, c.warm, c.provedF, c.provedClass = *next, o.low, o.worst, o.provedF, o.class
		heap.Push(&t.queue, c)
		*next++
	}
}

// result returns the result with status s.
func (t *top1) result(s Status, r Reason, cex *Top1Point) *Top1Result {
	open := max(t.openVol, 0)
	if s == Holds {
		open = 0
	}
	return &Top1Result{Status: s, Reason: r, Class: t.class, Counterexample: cex, Nodes: t.nodes, Open: open}
}

// evalF returns f(x) in float64.
func (t *top1) evalF(x []float64) []float64 {
	y, err := t.f.Eval(x)
	if err != nil {
		panic(err) // the dimensions were checked by DecideTop1
	}
	return y
}

// evalG returns g(X2(x)) in float64.
func (t *top1) evalG(x []float64) []float64 {
	y, err := t.g.Eval(t.in.X2(x))
	if err != nil {
		panic(err) // the dimensions were checked by DecideTop1
	}
	return y
}

// top1Queue is a min-heap of nodes by prio (the parent's smallest margin
// bound: the most doubtful boxes first), ties to the smaller id.
type top1Queue []*top1Node

func (q top1Queue) Len() int { return len(q) }
func (q top1Queue) Less(i, j int) bool {
	if q[i].prio != q[j].prio {
		return q[i].prio < q[j].prio
	}
	return q[i].id < q[j].id
}
func (q top1Queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *top1Queue) Push(x any)   { *q = append(*q, x.(*top1Node)) }
func (q *top1Queue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}
