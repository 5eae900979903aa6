package verify

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/bounds/smear"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// node is a box of the search tree with what is known of it.
type node struct {
	id     int
	lo, hi []float64
	// open lists the outputs still to be proved on the box (for spec.Norm2,
	// every output); mag[k] is an upper bound of |g_k - f_k| on the box
	// (+Inf before any bound), inherited from the parent until bounded.
	open []int
	mag  []float64
	prio float64 // the node's bound in units of the tolerance
	// suspect holds the parent's attack ratio when it is at least
	// Options.SuspectRatio (0 otherwise): such nodes are taken first.
	suspect float64
	// ratio is the parent's attack ratio (0 for the root).
	ratio float64
	vol   float64   // fraction of the root's volume
	warm  []float64 // the parent's worst point, or nil
	// prior holds the parent's layer enclosures (bounds.PairBounds.Prior),
	// valid on this box too, or nil.
	prior *bounds.PairBounds
}

// outcome is what bounding and attacking a node found.
type outcome struct {
	// mag is the node's tightened bounds; open the outputs left open.
	mag  []float64
	open []int
	// closed lists the outputs proved on the whole box of the node.
	closed []int
	// worst is the attack's best point, ratio its value.
	worst []float64
	ratio float64
	// violation is set when the attack's best point, re-evaluated,
	// violates the tolerance.
	violation *Point
	// split is the coordinate to halve, -1 when none can be.
	split int
	// pb is the last bounds.Pair of the node (nil if none); prior its
	// enclosures, for the children.
	pb    *bounds.PairBounds
	prior *bounds.PairBounds
	// wentOn is set when the node's optimised bound went on past its
	// check before the last layers (decider.goal).
	wentOn bool
	err    error
}

// process attacks and bounds n: below the root, bounds first, and the
// attack only where they do not settle the box (a settled box holds no
// violation); at the root, the attack first, as most violations are found
// there. Once ctx is done its bound propagation stops with ctx's error
// (o.err).
func (d *decider) process(ctx context.Context, n *node) *outcome {
	o := &outcome{mag: append([]float64(nil), n.mag...), split: -1, ratio: -1}
	root := n.id == 0
	if !root {
		if o.err = d.boundNode(ctx, n, o); o.err != nil || len(o.open) == 0 {
			return o
		}
	}
	steps, starts := d.opts.AttackSteps, d.opts.AttackStarts
	if root {
		starts = d.opts.RootStarts
	} else if n.ratio < d.opts.AttackRatio { // a light attack
		steps, starts = steps/4, 0
	}
	rng := rand.New(rand.NewPCG(d.opts.Seed, uint64(n.id)))
	o.worst, o.ratio = d.att.attackNode(n.warm, n.lo, n.hi, n.open, steps, starts, rng)
	if root && o.ratio > d.opts.SearchRatio && o.ratio <= 1 {
		x, r := d.att.search(ctx, n.lo, n.hi, n.open, d.att.worstOutput(o.worst, n.open), d.opts.Seed)
		if r > o.ratio {
			o.worst, o.ratio = x, r
		}
	}
	if o.ratio > 1 {
		if p, s := d.point(o.worst); s == Violated {
			o.violation = p
			return o
		}
	}
	if root {
		if o.err = d.boundNode(ctx, n, o); o.err != nil || len(o.open) == 0 {
			return o
		}
	}
	o.split = -1
	if d.opts.Split == SplitDifference && o.pb != nil {
		if s := smear.Difference(d.f, d.g, o.pb, o.open, n.lo, n.hi); s != nil {
			o.split = smear.ArgmaxHalvable(s, n.lo, n.hi)
		}
	}
	if d.opts.Split != SplitGradient && o.split < 0 && o.pb != nil {
		if s := smear.Interval([2]*nn.Network{d.f, d.g}, o.pb, o.open, n.lo, n.hi); s != nil {
			o.split = smear.ArgmaxHalvable(s, n.lo, n.hi)
		}
	}
	if o.pb != nil {
		o.prior = o.pb.Prior()
	}
	o.pb = nil
	if o.split < 0 { // the gradient rule, or no smear (all of it 0)
		o.split = d.splitCoordinate(n, o.worst)
	}
	return o
}

// boundNode tightens o.mag on n's box by bound propagation, cheapest method
// first, and sets o.open and o.closed. A node whose parent's bound was
// already within OptimiseRatio of eps skips the symbolic bound: its
// optimised bound would be computed anyway. Each method starts from the
// layer bounds of the one before, the first from the parent's
// (bounds.Options.Within: the box lies inside theirs), and bounds g
// through f and the difference (bounds.Options.SecondByDifference).
func (d *decider) boundNode(ctx context.Context, n *node, o *outcome) error {
	in := d.in
	in.Box = spec.Box{Lo: n.lo, Hi: n.hi}
	o.open = n.open
	if settled, err := d.boundForward(in.Box, o); err != nil || settled {
		return err
	}
	within := n.prior
	methods := []bounds.Method{bounds.MethodInterval, bounds.MethodSymbolic, bounds.MethodOptimised}
	if n.prio <= d.opts.OptimiseRatio {
		methods = []bounds.Method{bounds.MethodInterval, bounds.MethodOptimised}
	}
	for _, m := range methods {
		if m == bounds.MethodOptimised && !(d.prio(o.mag, o.open) <= d.opts.OptimiseRatio) {
			break
		}
		opts := d.pairOptions(m, within, d.byDiff)
		if m == bounds.MethodOptimised {
			opts.Goal = d.goal(n, o)
		}
		pb, err := bounds.PairContext(ctx, d.f, d.g, in, opts)
		if err != nil {
			return fmt.Errorf("verify: bounding box %v..%v: %w", n.lo, n.hi, err)
		}
		vs, err := d.outputMags(ctx, pb, m, o.open)
		if err != nil {
			return err
		}
		tightenMags(o.mag, o.open, vs)
		o.pb, within = pb, pb
		if d.settle(o) {
			return nil
		}
	}
	return nil
}

// pairOptions returns the options of bounds.Pair on a node: method m,
// starting from the layer bounds within (nil: none), g bounded through f
// and the difference if byDiff.
func (d *decider) pairOptions(m bounds.Method, within *bounds.PairBounds, byDiff bool) bounds.Options {
	opts := bounds.DefaultOptions()
	opts.Method = m
	opts.UnstableOnly = d.opts.UnstableOnly
	opts.PlainPairs = true // the pair planes cost 3x the CPU and save no nodes here
	opts.SecondByDifference = byDiff
	opts.Optimise.Iterations = d.opts.OptimiseIterations
	opts.Optimise.Step = d.opts.OptimiseStep
	opts.Within = within
	return opts
}

// outputMags returns the bounds of |g_k - f_k| of pb for the outputs ks,
// computed with method m: the output intervals', or for symbolic methods
// the margins', back-substituted together (bounds.PairBounds.Margins),
// or ctx's error once ctx is done (bounds.PairBounds.MarginsContext).
func (d *decider) outputMags(ctx context.Context, pb *bounds.PairBounds, m bounds.Method, ks []int) ([]float64, error) {
	out := make([]float64, len(ks))
	if m == bounds.MethodInterval {
		for i, k := range ks {
			out[i] = pb.Output[k].Mag()
		}
		return out, nil
	}
	ivs, err := pb.MarginsContext(ctx, d.unitMargins(ks))
	if err != nil {
		return nil, fmt.Errorf("verify: margins of outputs %v: %w", ks, err)
	}
	for i, iv := range ivs {
		out[i] = iv.Mag()
	}
	return out, nil
}

// unitMargins returns the weights of the outputs ks as margins
// (bounds.PairBounds.Margins).
func (d *decider) unitMargins(ks []int) [][]float64 {
	cs := make([][]float64, len(ks))
	for i, k := range ks {
		cs[i] = make([]float64, d.m)
		cs[i][k] = 1
	}
	return cs
}

// tightenMags lowers mag[k] to vs[i] for the outputs k = ks[i].
func tightenMags(mag []float64, ks []int, vs []float64) {
	for i, k := range ks {
		mag[k] = min(mag[k], vs[i])
	}
}

// goalLayers is the number of last layers (ACAS Xu: two hidden layers
// and the output) an optimised bound leaves unoptimised at its checkpoint
// (decider.goal).
const goalLayers = 3

// exploreEvery: every exploreEvery-th node goes on past the check before
// the last layers whatever Options.ContinueWinRate says, so that its
// record keeps up with the search.
const exploreEvery = 32

// goal returns the goal of n's optimised bound (bounds.Goal), nil if
// Options.EarlyStopRatio is 0: the outputs o leaves open settled. It is
// checked after the last layer and, where the parent's bound was within
// EarlyStopRatio of eps, also before the last goalLayers layers, where a
// bound above ContinueRatio of eps stops the pass too, and so does any
// bound while the passes that went on past that check settled too few of
// their nodes (ContinueWinRate).
func (d *decider) goal(n *node, o *outcome) *bounds.Goal {
	if d.opts.EarlyStopRatio == 0 {
		return nil
	}
	g := &bounds.Goal{Margins: d.unitMargins(o.open), Met: func(ivs []bounds.Interval) bool {
		return d.settle(d.withMargins(o, ivs))
	}}
	if k := len(d.f.Layers) - goalLayers; k >= 1 && n.prio <= d.opts.EarlyStopRatio {
		g.Checkpoints = []int{k}
		if r := d.opts.ContinueRatio; r > 0 {
			losing := d.goingOnLoses() && n.id%exploreEvery != 0
			g.Hopeless = func(ivs []bounds.Interval) bool {
				t := d.withMargins(o, ivs)
				if losing || d.prio(t.mag, t.open) > r {
					return true
				}
				o.wentOn = true
				return false
			}
		}
	}
	return g
}

// goingOnLoses reports whether the optimised passes that went on past
// their check before the last layers settled under
// Options.ContinueWinRate of their nodes so far, counting one settled
// and one not before the first (the record is read while a batch is
// bounded and updated between batches, so the search does not depend on
// the scheduling).
func (d *decider) goingOnLoses() bool {
	w := d.opts.ContinueWinRate
	return w > 0 && float64(d.settled+1) < w*float64(d.goneOn+2)
}

// withMargins returns a copy of o's bounds and open outputs with the
// bounds tightened by the enclosures ivs of the open outputs.
func (d *decider) withMargins(o *outcome, ivs []bounds.Interval) *outcome {
	t := &outcome{mag: append([]float64(nil), o.mag...), open: o.open}
	vs := make([]float64, len(ivs))
	for i, iv := range ivs {
		vs[i] = iv.Mag()
	}
	tightenMags(t.mag, t.open, vs)
	return t
}

// byDiffRatio is the largest relative L1 distance of a layer's weights and
// biases, sum |W_g - W_f| / sum |W_f|, at which the search bounds g through
// f and the difference (float16 copies: under 2^-11).
const byDiffRatio = 1e-3

// closeCopy reports whether g is a close copy of f, layer for layer within
// byDiffRatio, so that the search bounds g through f and the difference
// (bounds.Options.SecondByDifference: a third less CPU per node on ACAS Xu
// float16). Not for a pruned copy, whose differences are wide where
// neurons were removed: with it VeriPrune 1_1 pruned5 was unknown after
// 5987 nodes, against 127 with g's own bounds, although the root's
// symbolic bounds differed by under 4 %.
func closeCopy(f, g *nn.Network) bool {
	if len(f.Layers) != len(g.Layers) {
		return false
	}
	for k := range f.Layers {
		l1, l2 := f.Layers[k], g.Layers[k]
		if l1.Conv != nil || l2.Conv != nil || l1.Out() != l2.Out() || l1.In() != l2.In() {
			return false
		}
		var dist, mass float64
		for i := range l1.Out() {
			for j := range l1.In() {
				w := l1.W.At(i, j)
				dist += math.Abs(l2.W.At(i, j) - w)
				mass += math.Abs(w)
			}
			dist += math.Abs(l2.B[i] - l1.B[i])
			mass += math.Abs(l1.B[i])
		}
		if !(dist <= byDiffRatio*mass) {
			return false
		}
	}
	return true
}

// settle moves the outputs proved by o.mag from o.open to o.closed (for
// spec.Norm2, all of them once the norm bound is below eps) and reports whether
// none is left open.
func (d *decider) settle(o *outcome) bool {
	if d.tol.Norm == spec.Norm2 {
		if normUp(o.mag, o.open) < d.tol.Eps[0] {
			o.closed, o.open = append(o.closed, o.open...), nil
		}
		return len(o.open) == 0
	}
	var open []int
	for _, k := range o.open {
		if o.mag[k] < d.tol.EpsAt(k) {
			o.closed = append(o.closed, k)
		} else {
			open = append(open, k)
		}
	}
	o.open = open
	return len(open) == 0
}

// prio returns the bound of a node in units of the tolerance: max_k
// mag_k / eps_k over the open outputs, or the norm bound / eps for spec.Norm2.
func (d *decider) prio(mag []float64, open []int) float64 {
	if d.tol.Norm == spec.Norm2 {
		return normUp(mag, open) / d.tol.Eps[0]
	}
	p := 0.0
	for _, k := range open {
		p = max(p, mag[k]/d.tol.EpsAt(k))
	}
	return p
}

// normUp returns an upper bound of the 2-norm of mag over the outputs
// ks, every operation rounded up.
func normUp(mag []float64, ks []int) float64 {
	s := 0.0
	for _, k := range ks {
		s = outward.AddUp(s, outward.MulUp(mag[k], mag[k]))
	}
	return outward.SqrtUp(s)
}

// splitCoordinate returns the coordinate of n's box to halve: the one of
// largest smear width_i * (|dr/dx_i| at the worst point + at the centre),
// r the attack's ratio, or, where both gradients vanish, of largest
// width_i times the first-layer weights on x_i; -1 if no coordinate can be
// halved in float64.
func (d *decider) splitCoordinate(n *node, worst []float64) int {
	c := centre(n.lo, n.hi)
	if worst == nil { // no finite difference found in the piece (values near the float64 limit)
		worst = c
	}
	_, gw := d.att.gradient(worst, n.open)
	_, gc := d.att.gradient(c, n.open)
	return splitBySmear(n.lo, n.hi, gw, gc, d.colWeight)
}

// children returns the two halves of n along coordinate i, with the next
// ids from *next.
func (d *decider) children(n *node, o *outcome, i int, next *int) [2]*node {
	mid := n.lo[i]/2 + n.hi[i]/2
	var out [2]*node
	for c := range out {
		lo, hi := append([]float64(nil), n.lo...), append([]float64(nil), n.hi...)
		if c == 0 {
			hi[i] = mid
		} else {
			lo[i] = mid
		}
		out[c] = &node{id: *next, lo: lo, hi: hi, open: o.open, mag: o.mag,
			prio: d.prio(o.mag, o.open), ratio: o.ratio, vol: n.vol / 2, warm: o.worst, prior: o.prior}
		if o.ratio >= d.opts.SuspectRatio {
			out[c].suspect = o.ratio
		}
		*next++
	}
	return out
}
