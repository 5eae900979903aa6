package bounds

import (
	"context"
	"fmt"
	"slices"
)

// Goal lets MethodOptimised stop as soon as its caller's question is
// answered (Options.Goal), the bounds of most boxes of a branch and bound
// settling a box long before the slopes of every layer are optimised.
//
// Pair checks the goal at each checkpoint k: before it optimises layer k,
// it bounds layers k, k+1, ... on a copy of its state as MethodSymbolic
// does (no slope optimisation: a fraction of the cost), on the optimised
// bounds of the layers below, and back-substitutes the goal's margins
// (PairBounds.Margins); if Met accepts them, or Hopeless does, Pair
// returns those bounds.
// After the last layer it checks the margins back-substituted without
// optimised slopes and, if Met accepts them, Margin and Margins of the
// result do not optimise slopes. Otherwise the pass goes on unchanged: a
// goal never met changes no bound, it only adds the time of its checks.
//
// Whatever Met answers, every bound returned is sound: at worst it is the
// looser bound of a pass that optimised fewer slopes.
type Goal struct {
	// Margins are the weights c of the margins c^T (f2 - f1) the caller
	// needs, one per output each (PairBounds.Margin).
	Margins [][]float64
	// Met reports whether enclosures of the margins, in the order of
	// Margins, answer the caller's question.
	Met func(margins []Interval) bool
	// Checkpoints are the layers k (1 <= k < depth of the deeper network)
	// before whose optimisation Pair checks the goal; the check after the
	// last layer needs no checkpoint. A check costs about the share of a
	// MethodSymbolic pass spent on layers k, k+1, ..., so checkpoints pay
	// where the goal is often met there.
	Checkpoints []int
	// Hopeless, if not nil, is asked at a checkpoint whose margins Met
	// does not accept: if it accepts them, optimising the layers above
	// is not worth its cost, and Pair returns the checkpoint's bounds
	// (layers k, k+1, ... and the margins bounded as MethodSymbolic does).
	Hopeless func(margins []Interval) bool
}

// checkGoal reports a goal whose margins do not have nOut weights each,
// or whose checkpoints are not layers 1..depth-1 (nil: no goal).
func checkGoal(g *Goal, nOut, depth int) error {
	if g == nil {
		return nil
	}
	if g.Met == nil || len(g.Margins) == 0 {
		return fmt.Errorf("bounds: options: Goal needs margins and Met: %w", ErrOptions)
	}
	if err := checkMargins(g.Margins, nOut); err != nil {
		return fmt.Errorf("bounds: options: Goal: %w", err)
	}
	for _, k := range g.Checkpoints {
		if k < 1 || k >= depth {
			return fmt.Errorf("bounds: options: Goal checkpoint %d, want 1..%d: %w", k, depth-1, ErrOptions)
		}
	}
	return nil
}

// checkpoint reports whether the goal is checked before layer k.
func (pp *pairProp) checkpoint(k int) bool {
	return pp.goal != nil && pp.opt != nil && slices.Contains(pp.goal.Checkpoints, k)
}

// goalMet reports whether the goal accepts the margins of pb,
// back-substituted without optimised slopes.
func (pp *pairProp) goalMet(pb *PairBounds) bool {
	ivs, err := pp.goalMargins(pb)
	return err == nil && pp.goal.Met(ivs)
}

// stopAt reports whether Pair stops at a checkpoint whose bounds are pb:
// the goal accepts their margins, or finds them hopeless.
func (pp *pairProp) stopAt(pb *PairBounds) bool {
	ivs, err := pp.goalMargins(pb)
	if err != nil {
		return false
	}
	return pp.goal.Met(ivs) || pp.goal.Hopeless != nil && pp.goal.Hopeless(ivs)
}

// goalMargins returns the goal's margins of pb, back-substituted without
// optimised slopes, and keeps them in pb for PairBounds.Margins, which
// would compute them again (pb is not yet returned: no other goroutine
// reads it).
func (pp *pairProp) goalMargins(pb *PairBounds) ([]Interval, error) {
	ivs, err := pb.margins(context.Background(), pp.goal.Margins, false)
	if err == nil {
		pb.goal = &checkedMargins{cs: pp.goal.Margins, ivs: slices.Clone(ivs)}
	}
	return ivs, err
}

// fork returns a copy of pp that bounds the layers not yet bounded
// without optimised slopes and without changing pp: its per-layer tables
// are copies, whose entries for the layers done, shared with pp, the
// layers above only read; its caches are pp's (they are safe for
// concurrent use and hold values, not choices).
func (pp *pairProp) fork() *pairProp {
	c := *pp
	c.opt, c.goal = nil, nil
	pb := *pp.pb
	pb.goal = nil
	n1, n2 := *pb.Net1, *pb.Net2
	n1.Pre, n1.Post = slices.Clone(n1.Pre), slices.Clone(n1.Post)
	n2.Pre, n2.Post = slices.Clone(n2.Pre), slices.Clone(n2.Post)
	pb.Net1, pb.Net2 = &n1, &n2
	pb.DiffPre, pb.DiffPost = slices.Clone(pb.DiffPre), slices.Clone(pb.DiffPost)
	c.pb = &pb
	c.sym1, c.sym2 = pp.sym1.fork(&n1), pp.sym2.fork(&n2)
	c.jointStep, c.jointPairs, c.jointFree = slices.Clone(pp.jointStep), slices.Clone(pp.jointPairs), slices.Clone(pp.jointFree)
	c.jointW, c.jointConv, c.jointB = slices.Clone(pp.jointW), slices.Clone(pp.jointConv), slices.Clone(pp.jointB)
	c.jointNoise, c.diffs = slices.Clone(pp.jointNoise), slices.Clone(pp.diffs)
	return &c
}

// fork returns a copy of s for the bounds net (a copy of s.net), whose
// per-layer tables are copies (see pairProp.fork).
func (s *symNet) fork(net *Net) *symNet {
	c := *s
	c.net = net
	c.rels, c.steps, c.free = slices.Clone(s.rels), slices.Clone(s.steps), slices.Clone(s.free)
	return &c
}
