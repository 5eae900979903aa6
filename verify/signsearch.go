package verify

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// The sign search. The mean-value bound (meanvalue.go) of an atom
//
//	a = c . (f(x_g) - f(x_f)) + C
//
// over a set of pairs holds as well with the enclosures of c^T J over the
// cells of any partition of the hull H of the set: the segment from x_f
// to x_g lies in H, and on its part inside a cell Q the integrand c^T J d
// lies in Q's enclosure G(Q), so
//
//	a >= C + min over cells Q of min over g in G(Q), d in D of g . d,
//
// with D the enclosure of the differences x_g - x_f over the whole set.
// The sign search looks for such a partition by branch and bound over H
// alone (5 coordinates on ACAS Xu, where the joint search splits 10). A
// cell is closed when its bound shows the atom false throughout (> 0, or
// 0 for a strict atom); an open cell is halved along the coordinate whose
// halves gain most on the cell's bound together (strong branching over the
// coordinates of positive width, scored by the product of the halves'
// gains up to 0, as MIP solvers score branches; the halves' bounds are
// kept for the children, so a split costs 2n bounds, 2 of them reused). On monotonicity (d_0 >= 0,
// the other differences 0) the bound is exactly 0 where the enclosure of
// the relevant Jacobian column keeps its sign, which closes the strict
// atom, so the search splits only where unstable neurons leave that sign
// open. It gives up when the gradient at an open cell's centre shows that
// no cell around it can close (a float64 heuristic: giving up is never a
// verdict) or a cell can no longer be halved; giving up at a point, it
// tries as counterexamples the pair of the line through the point along
// the worst difference where the atom falls most, then pairs about the
// point. The cells wait in a
// frontier (best first up to Options.MaxQueue, depth first beyond), and
// the tree does not depend on the scheduling.

// signSearch is the sign search of one atom.
type signSearch struct {
	f      *nn.Network
	c      []float64
	C      float64
	strict bool
	d      []bounds.Interval
	hull   spec.Box // the root cell
	need   []bool   // the coordinates whose difference can be nonzero
	cells  *frontier[*signCell]
	next   int
	// refute, if not nil, returns a counterexample near the point x
	// where the atom falls along dir, or nil.
	refute func(x, dir []float64) *RelationalPoint
	// count is the number of cells bounded; failed reports that the
	// search gave up, cex the counterexample refute found then.
	count  int
	failed bool
	cex    *RelationalPoint
}

// signCell is a cell of the hull with its atom's lower bound.
type signCell struct {
	lo, hi []float64
	lb     float64
	id     int
}

// signOutcome is what splitting a cell found.
type signOutcome struct {
	children []*signCell
	bounded  int
	failed   bool
	cex      *RelationalPoint
	err      error
}

// newSignSearch returns the sign search of the atom c . (f(x_g) - f(x_f))
// + C (strict: < 0 is unsafe) over the hull h with differences d, its
// root cell bounded (ctx's error once ctx is done first).
func newSignSearch(ctx context.Context, f *nn.Network, c []float64, C float64, strict bool, h spec.Box, d []bounds.Interval, limit int) (*signSearch, error) {
	q := &signSearch{f: f, c: c, C: C, strict: strict, d: d, hull: h, need: nonzero(d), next: 1,
		cells: newFrontier(func(a, b *signCell) bool {
			if a.lb != b.lb {
				return a.lb < b.lb
			}
			return a.id < b.id
		}, limit)}
	root := &signCell{lo: h.Lo, hi: h.Hi}
	var err error
	if root.lb, err = q.bound(ctx, root.lo, root.hi); err != nil {
		return nil, err
	}
	q.count = 1
	if !q.closes(root.lb) {
		q.cells.Push(root)
	}
	return q, nil
}

// proven reports that every cell is closed.
func (q *signSearch) proven() bool { return !q.failed && q.cells.Len() == 0 }

// step splits a batch of at most batch cells, best first, on workers
// goroutines, and queues the children left open in the batch's order.
func (q *signSearch) step(ctx context.Context, workers, batch int) error {
	cs := make([]*signCell, min(batch, q.cells.Len()))
	for i := range cs {
		cs[i] = q.cells.Pop()
	}
	outs := processBatch(ctx, workers, cs, func(cl *signCell) *signOutcome { return q.split(ctx, cl) })
	for i, o := range outs {
		if o == nil { // cancelled before it was split, or while
			q.cells.Push(cs[i])
			continue
		}
		q.count += o.bounded
		switch {
		case o.err != nil:
			return o.err
		case o.failed:
			q.failed, q.cex = true, o.cex
			return nil
		}
		for _, ch := range o.children {
			ch.id = q.next
			q.next++
			q.cells.Push(ch)
		}
	}
	return nil
}

// bound returns the atom's mean-value lower bound with the enclosure of
// c^T J over the cell [lo, hi]; ctx's error once ctx is done.
func (q *signSearch) bound(ctx context.Context, lo, hi []float64) (float64, error) {
	bo := bounds.DefaultOptions()
	bo.Method = bounds.MethodSymbolic
	bo.UnstableOnly = true // the same stable neurons, for less CPU
	net, err := bounds.SingleContext(ctx, q.f, spec.Box{Lo: lo, Hi: hi}, bo)
	if err != nil {
		return 0, err
	}
	glo, ghi := outwardGradient(q.f, net.Pre, q.c, q.need)
	return meanValueBound(q.C, glo, ghi, q.d), nil
}

// closes reports whether the lower bound lb shows the atom false.
func (q *signSearch) closes(lb float64) bool { return lb > 0 || (lb == 0 && q.strict) }

// split halves the open cell cl (see the comment at the top of the
// file); nil when ctx cut a bound of a half (cl stays open).
func (q *signSearch) split(ctx context.Context, cl *signCell) *signOutcome {
	o := &signOutcome{}
	if x, dir := q.pointFails(cl); x != nil {
		o.failed = true
		if q.refute != nil {
			if xa, step, _ := q.steepestFall(x, dir); xa != nil {
				o.cex = q.refute(xa, step)
			}
			if o.cex == nil {
				o.cex = q.refute(x, dir)
			}
		}
		return o
	}
	var best [2]*signCell
	bestScore := math.Inf(-1)
	eps := 1e-6*math.Abs(cl.lb) + 0x1p-1000
	for i := range cl.lo {
		mid := cl.lo[i]/2 + cl.hi[i]/2
		if !(cl.lo[i] < mid && mid < cl.hi[i]) {
			continue
		}
		var halves [2]*signCell
		score := 1.0
		for side := range halves {
			lo, hi := append([]float64(nil), cl.lo...), append([]float64(nil), cl.hi...)
			if side == 0 {
				hi[i] = mid
			} else {
				lo[i] = mid
			}
			lb, err := q.bound(ctx, lo, hi)
			if err != nil && ctx.Err() != nil {
				return nil // the cell stays open
			}
			o.bounded++
			if err != nil {
				o.err = err
				return o
			}
			halves[side] = &signCell{lo: lo, hi: hi, lb: lb}
			score *= max(min(lb, 0)-cl.lb, eps)
		}
		if best[0] == nil || score > bestScore {
			best, bestScore = halves, score
		}
	}
	if best[0] == nil {
		o.failed = true // too narrow to halve in float64
		return o
	}
	for _, h := range best {
		if !q.closes(h.lb) {
			o.children = append(o.children, h)
		}
	}
	return o
}

// cellPoints is the number of points of a cell where pointFails looks at
// the gradient besides its centre.
const cellPoints = 4

// pointFails returns a point x of the cell, its centre or one of
// cellPoints points drawn with the cell's number as seed, where the
// gradient g of c . f in float64 has C + min over d of g . d below 0 (or
// at 0 for a non-strict atom), and the difference dir, a vertex of d,
// attaining that minimum; nil if there is none. No enclosure over a cell
// holding x can then close the atom, and a pair (x, x + t dir) for small
// t may violate it.
func (q *signSearch) pointFails(cl *signCell) (x, dir []float64) {
	rng := rand.New(rand.NewPCG(uint64(cl.id), 29))
	dir = make([]float64, len(q.d))
	for p := range cellPoints + 1 {
		x = centre(cl.lo, cl.hi)
		if p > 0 {
			for i := range x {
				x[i] = cl.lo[i] + rng.Float64()*(cl.hi[i]-cl.lo[i])
			}
		}
		_, tr, err := search.Forward(q.f, x)
		if err != nil {
			return nil, nil
		}
		g := tr.Backward(q.c)
		v := q.C
		for i, di := range q.d {
			dir[i] = di.Lo
			if g[i] < 0 {
				dir[i] = di.Hi
			}
			if g[i] != 0 {
				v += g[i] * dir[i]
			}
		}
		if v < 0 || (v == 0 && !q.strict) {
			return x, dir
		}
	}
	return nil, nil
}

// signProof runs the sign searches of a relational search: per
// conjunction, one per atom of the form c . (y_g - y_f) + C, tried in
// turn until one is proven (the conjunction is then false on every pair)
// or all gave up (the proof then gives up).
type signProof struct {
	atoms [][]*signSearch
	conj  int // the first conjunction not proven
}

// newSignProof returns the sign proof of the search s over its root joint
// box [lo, hi], or nil when the mean-value bound does not apply or some
// conjunction has no atom of the difference form.
func (s *relSearch) newSignProof(ctx context.Context, lo, hi []float64) (*signProof, error) {
	if !s.meanValueApplies() {
		return nil, nil
	}
	h, d := s.segments(lo, hi)
	p := &signProof{atoms: make([][]*signSearch, len(s.j.conj))}
	for ci, c := range s.j.conj {
		for _, ai := range c {
			a := s.j.atoms[ai]
			coef, ok := differenceCoefs(a, s.f.OutputSize())
			if !ok {
				continue
			}
			q, err := newSignSearch(ctx, s.f, coef, a.C, a.Strict, h, d, s.opts.MaxQueue)
			if err != nil {
				return nil, err
			}
			q.refute = s.refute
			s.nodes += q.count
			p.atoms[ci] = append(p.atoms[ci], q)
		}
		if len(p.atoms[ci]) == 0 {
			return nil, nil
		}
	}
	return p, nil
}

// signStep is what a step of a sign proof found.
type signStep struct {
	cells  int              // the cells bounded
	proven bool             // every conjunction is false on every pair
	failed bool             // the proof gave up
	cex    *RelationalPoint // a counterexample found on the way
}

// step advances the proof by one batch of its current search.
func (p *signProof) step(ctx context.Context, o Options) (signStep, error) {
	for p.conj < len(p.atoms) {
		as := p.atoms[p.conj]
		for len(as) > 0 && as[0].failed {
			if as[0].cex != nil {
				return signStep{cex: as[0].cex, failed: true}, nil
			}
			as = as[1:]
		}
		p.atoms[p.conj] = as
		switch {
		case len(as) == 0:
			return signStep{failed: true}, nil
		case as[0].proven():
			p.conj++
			continue
		}
		before := as[0].count
		err := as[0].step(ctx, o.Workers, o.Batch)
		st := signStep{cells: as[0].count - before}
		if as[0].cex != nil {
			st.cex, st.failed = as[0].cex, true
		}
		return st, err
	}
	return signStep{proven: true}, nil
}
