package verify

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// RelationalResult is the outcome of DecideRelational.
type RelationalResult struct {
	// Status is Holds (no counterexample: VNN-COMP's unsat), Violated
	// (Counterexample is one, checked by CheckRelational) or Unknown.
	Status Status `json:"verdict"`
	Reason Reason `json:"reason,omitempty"`
	// Counterexample is set with Violated only.
	Counterexample *RelationalPoint `json:"counterexample,omitempty"`
	// Nodes counts the boxes bounded; Open counts the boxes left
	// unsettled when the search stopped (0 for Holds).
	Nodes int `json:"nodes"`
	Open  int `json:"open"`
	// Time is the wall-clock time of the decision; Seconds is Time in
	// seconds, for JSON.
	Time    time.Duration `json:"-"`
	Seconds float64       `json:"seconds"`
}

// DecideRelational decides the relational property r over f and g (g
// unused when r concerns one network) by branch and bound over the joint
// input z = (u, w) of the joint network (joint.go): x_f = u, and x_g[i]
// = u_i + w_i where a link relates coordinate i, w_i otherwise, so equal
// coordinates stay one variable and a bounded difference is the width of
// w_i. Each node is a box of z, narrowed to the projections of the input
// set (a superset of its pairs: a node shown empty is closed). On a node,
// each conjunction of r.Unsafe is closed when some atom's lower bound
// over the node (bounds.Single on the joint network, symbolic, then
// optimised slopes), plus its constant rounded down, shows that atom
// false throughout; a node with every conjunction closed is settled.
// Otherwise the node is attacked (sign-gradient descent from its centre
// and its parent's best point on the open conjunctions), a candidate is
// projected into the input set (x_g clamped to its box and links) and
// re-checked by CheckRelational, and the node is split in two along the
// coordinate of largest width times first-layer column weight.
//
// Holds is returned only when every node of a partition of the joint box
// is settled; Violated only with a pair CheckRelational accepts. Batches
// of Options.Batch nodes are bounded on Options.Workers goroutines and
// merged in order, so the verdict and the node count do not depend on
// the scheduling; Options.MaxNodes, ctx's deadline and its cancellation
// stop the search with Unknown and the reason. nil opts means
// DefaultOptions(). Pairs it cannot bound (different depths or
// activations, quantisers, convolutions) wrap ErrPairUnsupported.
func DecideRelational(ctx context.Context, f, g *nn.Network, r *spec.Relational, opts *Options) (*RelationalResult, error) {
	start := time.Now()
	o := DefaultOptions()
	if opts != nil {
		o = *opts
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkRelational(f, g, r); err != nil {
		return nil, err
	}
	j, err := newJoint(f, g, r)
	if err != nil {
		return nil, err
	}
	s := &relSearch{f: f, g: g, r: r, j: j, opts: o}
	s.colWeight = make([]float64, j.net.InputSize())
	j.net.Layers[0].AddAbsColumnSums(s.colWeight)
	res, err := s.run(ctx)
	if err != nil {
		return nil, err
	}
	res.Time = time.Since(start)
	res.Seconds = res.Time.Seconds()
	return res, nil
}

// checkRelational validates the networks against the property.
func checkRelational(f, g *nn.Network, r *spec.Relational) error {
	nets := []*nn.Network{f}
	if !r.Single() {
		nets = append(nets, g)
	}
	boxes := []spec.Box{r.BoxF, r.BoxG}
	for i, n := range nets {
		if n == nil {
			return fmt.Errorf("verify: network %d is nil: %w", i+1, nn.ErrDimension)
		}
		if err := n.Validate(); err != nil {
			return fmt.Errorf("verify: network %d: %w", i+1, err)
		}
		if n.InputSize() != boxes[i].Dim() {
			return fmt.Errorf("verify: network %d takes %d inputs, the property gives %d: %w", i+1, n.InputSize(), boxes[i].Dim(), nn.ErrDimension)
		}
	}
	mg := 0
	if !r.Single() {
		mg = g.OutputSize()
	}
	if err := r.Validate(f.OutputSize(), mg); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	return nil
}

// relSearch is one relational decision's state.
type relSearch struct {
	f, g      *nn.Network
	r         *spec.Relational
	j         *joint
	opts      Options
	colWeight []float64
	queue     *frontier[*relNode]
	signs     *signProof // nil: none, or given up
	nodes     int
	stuck     int
	next      int
}

// relNode is a box of the joint input with the conjunctions still open
// on it.
type relNode struct {
	lo, hi []float64
	open   []int
	warm   []float64 // the parent's best attack point, or nil
	score  float64   // the parent's smallest margin: lower first
	id     int
}

// relOutcome is what processing a node found.
type relOutcome struct {
	open  []int
	cex   *RelationalPoint
	best  []float64
	score float64
	split int // -1: cannot split
	err   error
}

// run searches the tree batch by batch.
func (s *relSearch) run(ctx context.Context) (*RelationalResult, error) {
	lo, hi, ok := s.j.box(s.r)
	if !ok {
		return &RelationalResult{Status: Holds}, nil
	}
	all := make([]int, len(s.j.conj))
	for i := range all {
		all[i] = i
	}
	s.queue = newFrontier(func(a, b *relNode) bool {
		if a.score != b.score {
			return a.score < b.score
		}
		return a.id < b.id
	}, s.opts.MaxQueue)
	s.queue.Push(&relNode{lo: lo, hi: hi, open: all, score: math.Inf(-1)})
	s.next = 1
	var err error
	if s.signs, err = s.newSignProof(ctx, lo, hi); err != nil {
		if ctx.Err() != nil { // a pass cut: nothing proved
			return s.result(Unknown, stopReason(ctx.Err()), nil), nil
		}
		return nil, fmt.Errorf("verify: %w", err)
	}
	for round := 0; s.queue.Len() > 0 || (s.stuck > 0 && s.signs != nil); round++ {
		if err := ctx.Err(); err != nil {
			return s.result(Unknown, stopReason(err), nil), nil
		}
		st, err := s.signStep(ctx)
		switch {
		case err != nil:
			return nil, fmt.Errorf("verify: %w", err)
		case st.cex != nil:
			return s.result(Violated, NoReason, st.cex), nil
		case st.proven:
			return s.result(Holds, NoReason, nil), nil
		}
		if s.opts.MaxNodes > 0 && s.nodes >= s.opts.MaxNodes {
			return s.result(Unknown, NodeLimit, nil), nil
		}
		if s.signs != nil && round%signRounds != 0 {
			continue
		}
		k := min(s.opts.Batch, s.queue.Len())
		if s.opts.MaxNodes > 0 {
			k = min(k, s.opts.MaxNodes-s.nodes)
		}
		batch := make([]*relNode, k)
		for i := range batch {
			batch[i] = s.queue.Pop()
		}
		outs := processBatch(ctx, s.opts.Workers, batch, func(n *relNode) *relOutcome { return s.process(ctx, n) })
		for i, o := range outs {
			if o == nil {
				s.queue.Push(batch[i])
				continue
			}
			s.nodes++
			if o.err != nil {
				return nil, fmt.Errorf("verify: %w", o.err)
			}
			if o.cex != nil {
				for _, n := range batch[i+1:] {
					s.queue.Push(n)
				}
				return s.result(Violated, NoReason, o.cex), nil
			}
			s.merge(batch[i], o)
		}
	}
	if s.stuck > 0 {
		return s.result(Unknown, Precision, nil), nil
	}
	return s.result(Holds, NoReason, nil), nil
}

// signStep advances the sign proof, if any, by one batch, counting its
// cells as nodes (limited by MaxNodes as well).
func (s *relSearch) signStep(ctx context.Context) (signStep, error) {
	if s.signs == nil {
		return signStep{}, nil
	}
	st, err := s.signs.step(ctx, s.opts)
	s.nodes += st.cells
	if st.failed {
		s.signs = nil
	}
	return st, err
}

// signRounds is the number of sign-proof batches per batch of the joint
// search while the sign proof runs: the proof is what settles a property
// that holds, and finds counterexamples of its own.
const signRounds = 4

// result returns the result with status st.
func (s *relSearch) result(st Status, r Reason, cex *RelationalPoint) *RelationalResult {
	res := &RelationalResult{Status: st, Reason: r, Counterexample: cex, Nodes: s.nodes}
	if st != Holds {
		res.Open = s.queue.Len() + s.stuck
	}
	return res
}

// merge queues the children of a node left open.
func (s *relSearch) merge(n *relNode, o *relOutcome) {
	if len(o.open) == 0 {
		return
	}
	if o.split < 0 {
		s.stuck++
		return
	}
	mid := n.lo[o.split]/2 + n.hi[o.split]/2
	for side := range 2 {
		lo, hi := append([]float64(nil), n.lo...), append([]float64(nil), n.hi...)
		if side == 0 {
			hi[o.split] = mid
		} else {
			lo[o.split] = mid
		}
		if !s.j.tighten(s.r, lo, hi) {
			continue // no pair of the set in this half
		}
		s.queue.Push(&relNode{lo: lo, hi: hi, open: o.open, warm: o.best, score: o.score, id: s.next})
		s.next++
	}
}

// process bounds, attacks and picks the split of one node; nil when ctx
// cut a pass of bound propagation (the node stays open: the search then
// stops unknown).
func (s *relSearch) process(ctx context.Context, n *relNode) *relOutcome {
	o := &relOutcome{open: n.open}
	for step := range 3 {
		var lb []float64
		var err error
		if step == 0 {
			lb, err = s.meanValueBounds(ctx, n.lo, n.hi)
		} else {
			lb, err = s.atomBounds(ctx, n, []bounds.Method{0, bounds.MethodSymbolic, bounds.MethodOptimised}[step])
		}
		if err != nil && ctx.Err() != nil {
			return nil
		}
		if err != nil {
			o.err = err
			return o
		}
		if lb == nil {
			continue
		}
		o.open, o.score = s.close(o.open, lb)
		if len(o.open) == 0 {
			return o
		}
	}
	o.best, o.cex = s.attack(n, o.open)
	o.split = s.pickSplit(n)
	return o
}

// atomBounds returns, per atom, a lower bound of its left-hand side
// (constant included, rounded down) on node n by bounds.SingleContext on
// the joint network with method m; ctx's error once ctx is done.
func (s *relSearch) atomBounds(ctx context.Context, n *relNode, m bounds.Method) ([]float64, error) {
	bo := bounds.DefaultOptions()
	bo.Method = m
	net, err := bounds.SingleContext(ctx, s.j.net, spec.Box{Lo: n.lo, Hi: n.hi}, bo)
	if err != nil {
		return nil, err
	}
	out := net.Post[len(net.Post)-1]
	lb := make([]float64, len(out))
	for i, a := range s.j.atoms {
		lb[i] = outward.AddDown(out[i].Lo, a.C)
	}
	return lb, nil
}

// close returns the conjunctions of open not shown false by the atoms'
// lower bounds lb, and the smallest margin of those left (how far the best
// atom's lower bound is from closing them; lower means closer to a
// violation).
func (s *relSearch) close(open []int, lb []float64) ([]int, float64) {
	var left []int
	score := math.Inf(1)
	for _, c := range open {
		best := math.Inf(-1)
		closed := false
		for _, ai := range s.j.conj[c] {
			if lb[ai] > 0 || (lb[ai] == 0 && s.j.atoms[ai].Strict) {
				closed = true
				break
			}
			best = max(best, lb[ai])
		}
		if !closed {
			left = append(left, c)
			score = min(score, best)
		}
	}
	return left, score
}

// pickSplit returns the coordinate of largest width times first-layer
// column weight that can be halved, or -1.
func (s *relSearch) pickSplit(n *relNode) int {
	arg, best := -1, -1.0
	for i := range n.lo {
		mid := n.lo[i]/2 + n.hi[i]/2
		if !(n.lo[i] < mid && mid < n.hi[i]) {
			continue
		}
		if v := (n.hi[i] - n.lo[i]) * (s.colWeight[i] + 1e-300); v > best {
			arg, best = i, v
		}
	}
	return arg
}
