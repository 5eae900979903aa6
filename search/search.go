// Package search finds the largest error ||f1(x1) - f2(x2)|| two networks
// actually attain on an input set: a lower bound of the worst case, shown
// next to a certified upper bound so a user can see how tight it is.
//
// MaxError combines, within a time budget, exact enumeration of breakpoints
// (one input, piecewise-linear networks: the result is then the supremum),
// a regular grid (search spaces of at most two dimensions), box corners,
// uniform random points, and local searches from the best points
// (projected gradient and sign-gradient ascent, then coordinate pattern
// search), for a quantised network a walk on the grid of its input that
// chooses its roundings (anneal.go), and sampling that zooms in on the
// best points. It is deterministic for a seed. The error it reports is always
// the value at the X1, X2 it returns, evaluated as nn.Network.Eval does.
// MaxErrorIndependent does the same for x1 and x2 in boxes of their own,
// as in a piece of an independent input set once it is split.
//
// It is the one home of the search for observed errors: certify calls it
// on the whole input set, with many points, and on each piece of its
// refinement, with few.
package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Result is the largest error found.
type Result struct {
	// Error is the error at (X1, X2).
	Error float64
	// X1, X2 are the inputs of the two networks attaining it.
	X1, X2 []float64
	// Exact reports that Error is the supremum of the error over the input
	// set, up to float64 rounding (breakpoint enumeration succeeded).
	Exact bool
	// Evaluations counts evaluations of the pair of networks.
	Evaluations int
	// TimedOut reports that the time limit stopped the search early.
	TimedOut bool
}

// MaxError searches for the inputs (x1, x2) in the set in at which f1 and f2
// differ most, measured by q (spec.Quantity.Measure). It returns an error
// for invalid networks, inputs or options, and, with the best result so
// far, when ctx is cancelled.
func MaxError(ctx context.Context, f1, f2 *nn.Network, in spec.Inputs, q spec.Quantity, opts Options) (*Result, error) {
	if err := check(f1, f2, in, in.Box, q, opts); err != nil {
		return nil, err
	}
	return maxError(ctx, f1, f2, in, in.Box, q, opts)
}

// MaxErrorIndependent is MaxError for x1 anywhere in box1 and x2 anywhere
// in box2, independently: a piece of an Independent input set once it is
// split, where the boxes of x1 and x2 differ (spec.Inputs, which gives both
// inputs one box, describes the whole set, not its pieces). MaxError on
// spec.Inputs{Box: b, Pairing: spec.Independent} is MaxErrorIndependent
// on (b, b), with the same result. The boxes must have the same dimension,
// the networks' input size.
func MaxErrorIndependent(ctx context.Context, f1, f2 *nn.Network, box1, box2 spec.Box, q spec.Quantity, opts Options) (*Result, error) {
	in := spec.Inputs{Box: box1, Pairing: spec.Independent}
	if err := box2.Validate(); err != nil {
		return nil, fmt.Errorf("search: box of x2: %w", err)
	}
	if err := check(f1, f2, in, box2, q, opts); err != nil {
		return nil, err
	}
	return maxError(ctx, f1, f2, in, box2, q, opts)
}

// maxError runs the phases of the search on the checked instance: x1 in
// in.Box, x2 paired with it by in.Pairing, or anywhere in box2 when
// in.Pairing is Independent.
func maxError(ctx context.Context, f1, f2 *nn.Network, in spec.Inputs, box2 spec.Box, q spec.Quantity, opts Options) (*Result, error) {
	return run(ctx, newProblem(f1, f2, in, box2, q), opts)
}

// run runs the phases of the search on the problem p.
func run(ctx context.Context, p *problem, opts Options) (*Result, error) {
	s := &searcher{p: p, opts: opts, ctx: ctx,
		rng: rand.New(rand.NewPCG(opts.Seed, 0x5ea4c4))}
	if opts.TimeLimit > 0 {
		s.deadline = time.Now().Add(opts.TimeLimit)
	}
	exact := false
	if opts.Exact {
		exact = s.exact()
	}
	s.evals0, s.budgetOn = s.p.evals, true
	if m, _ := p.quantisedSide(); m != 0 && opts.MaxEvals > 0 && !exact {
		// Where the budget binds, the phases before the walk on the
		// input grid leave it a share.
		s.reserve = min(opts.AnnealEvals, opts.MaxEvals/2)
	}
	s.grid()
	s.corners()
	if !exact {
		s.random()
		s.local()
		s.reserve = 0
		s.anneal()
		s.zoom()
	}
	if s.best == nil { // every phase disabled: the box's lower corner
		s.consider(append([]float64(nil), s.p.lo...), s.p.value(s.p.lo))
	}
	x1, x2 := s.p.inputs(s.best)
	res := &Result{
		Error:       s.bestV,
		X1:          append([]float64(nil), x1...),
		X2:          append([]float64(nil), x2...),
		Exact:       exact,
		Evaluations: s.p.evals,
		TimedOut:    s.timedOut,
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("search: stopped: %w", err)
	}
	return res, nil
}

// check validates the arguments of MaxError; box2 is the box of x2 when
// in.Pairing is Independent (in.Box for MaxError).
func check(f1, f2 *nn.Network, in spec.Inputs, box2 spec.Box, q spec.Quantity, opts Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	if err := q.Validate(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if err := in.Validate(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	for i, f := range []*nn.Network{f1, f2} {
		if f == nil {
			return fmt.Errorf("search: network %d is nil: %w", i+1, nn.ErrDimension)
		}
		if err := f.Validate(); err != nil {
			return fmt.Errorf("search: network %d: %w", i+1, err)
		}
		if f.InputSize() != in.Box.Dim() {
			return fmt.Errorf("search: network %d takes %d inputs, box has %d: %w", i+1, f.InputSize(), in.Box.Dim(), nn.ErrDimension)
		}
	}
	if box2.Dim() != in.Box.Dim() {
		return fmt.Errorf("search: the box of x2 has %d coordinates, the box of x1 %d: %w", box2.Dim(), in.Box.Dim(), nn.ErrDimension)
	}
	if f1.OutputSize() != f2.OutputSize() {
		return fmt.Errorf("search: network 1 has %d outputs, network 2 has %d: %w", f1.OutputSize(), f2.OutputSize(), nn.ErrDimension)
	}
	if q.C != nil && len(q.C) != f1.OutputSize() {
		return fmt.Errorf("search: C has %d entries for %d outputs: %w", len(q.C), f1.OutputSize(), spec.ErrQuantity)
	}
	return nil
}

// searcher holds the state of one search.
type searcher struct {
	p        *problem
	opts     Options
	ctx      context.Context
	rng      *rand.Rand
	deadline time.Time
	stopped  bool // the time limit or ctx ended the search
	timedOut bool
	// nextClock is the evaluation count at which to read the clock next.
	nextClock int
	// evals0 is the evaluation count when MaxEvals began to count (after
	// the exact enumeration); budgetOn says it has.
	evals0   int
	budgetOn bool
	// reserve is the part of MaxEvals held back for the annealing phase
	// until it starts.
	reserve int
	best    []float64
	bestV   float64
	// pool holds the best distinct points seen, for restarts.
	pool []scored
}

// scored is a point of the search box with its error.
type scored struct {
	z []float64
	v float64
}

// consider records the point z with error v.
func (s *searcher) consider(z []float64, v float64) {
	if s.best == nil || v > s.bestV {
		s.best, s.bestV = z, v
	}
	k := s.opts.Restarts
	if k == 0 {
		return
	}
	if len(s.pool) == k && v <= s.pool[k-1].v {
		return
	}
	i, _ := slices.BinarySearchFunc(s.pool, v, func(a scored, v float64) int {
		switch {
		case a.v > v:
			return -1
		case a.v < v:
			return 1
		}
		return 0
	})
	s.pool = slices.Insert(s.pool, i, scored{z, v})
	if len(s.pool) > k {
		s.pool = s.pool[:k]
	}
}

// eval evaluates and records z.
func (s *searcher) eval(z []float64) float64 {
	v := s.p.value(z)
	s.consider(z, v)
	return v
}

// done reports whether the search must stop before its next evaluation
// (evaluation budget, time limit or cancellation), looking at ctx every
// time and at the clock every 64 evaluations.
func (s *searcher) done() bool {
	return s.doneBefore(1)
}

// doneBefore reports whether the search must stop before a step of n
// evaluations: done, or fewer than n evaluations left of MaxEvals, so
// that the search never makes more than MaxEvals.
func (s *searcher) doneBefore(n int) bool {
	if s.stopped {
		return true
	}
	if s.budgetOn && s.opts.MaxEvals > 0 && s.p.evals+n > s.evals0+s.opts.MaxEvals-s.reserve {
		if s.reserve > 0 {
			return true // the phase ends, not the search
		}
		s.stopped = true
		return true
	}
	if s.ctx.Err() != nil { // cheap beside an evaluation
		s.stopped = true
		return true
	}
	if s.p.evals < s.nextClock {
		return false
	}
	s.nextClock = s.p.evals + 64
	if !s.deadline.IsZero() && time.Now().After(s.deadline) {
		s.stopped, s.timedOut = true, true
	}
	return s.stopped
}
