package verify

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// top1Node is a box of the top-1 search tree.
type top1Node struct {
	id     int
	lo, hi []float64
	vol    float64   // fraction of the root's volume
	prio   float64   // the parent's smallest margin bound (-Inf for the root)
	warm   []float64 // the parent's attack's best point, or nil
	// glo, ghi is the box of g's quantised input n owns (top1split.go),
	// nil at the root or without splitting on the quantiser.
	glo, ghi []float64
	// provedF holds the lower bounds of f's margins for the class
	// provedClass on the parent's box when they are all positive (they
	// hold on n, a part of it), nil otherwise.
	provedF     []float64
	provedClass int
}

// top1Outcome is what bounding and attacking a node found.
type top1Outcome struct {
	closed    bool
	violation *Top1Point
	worst     []float64 // the attack's best point
	low       float64   // the smallest lower bound of the margins
	provedF   []float64 // f's margins' lower bounds when all are positive
	class     int       // f's class at the centre
	split     int       // the coordinate to halve, -1 when none can be
	err       error
}

// top1Targets is the number of classes j, those of the smallest margin
// bounds, that the attack of a node tries to make one network pick.
const top1Targets = 3

// process bounds n's margins and, if they do not settle the box, attacks
// it and chooses the coordinate to split; nil (n stays open) when ctx
// ended first: a pass of bound propagation, the attack (between its
// ascents) and the root's walk stop there, and a violation found before
// is still returned.
func (t *top1) process(ctx context.Context, n *top1Node) *top1Outcome {
	o := &top1Outcome{split: -1}
	x0 := centre(n.lo, n.hi)
	c := argmax(t.evalF(x0))
	if p, s, err := CheckTop1(t.f, t.g, x0, t.in.X2(x0)); err != nil {
		o.err = err
		return o
	} else if s == Violated {
		o.violation = p
		return o
	}
	lf, lg, err := t.margins(ctx, n, c)
	if err != nil && ctx.Err() != nil {
		return nil
	}
	if err != nil {
		o.err = err
		return o
	}
	o.low = math.Inf(1)
	for j := range lf {
		o.low = min(o.low, lf[j], lg[j])
	}
	if slices.Min(lf) > 0 {
		o.provedF, o.class = lf, c
	}
	if o.low > 0 {
		o.closed = true
		return o
	}
	targets := t.targets(c, lf, lg)
	starts := t.opts.AttackStarts
	if n.id == 0 {
		starts = t.opts.RootStarts
	}
	rng := rand.New(rand.NewPCG(t.opts.Seed, uint64(n.id)))
	o.worst, o.violation = t.attack(ctx, n, c, targets, starts, rng)
	if o.violation == nil && n.id == 0 {
		if x, v := t.levels(ctx, n, c, rng); v != nil {
			o.worst, o.violation = x, v
		} else if x, v := t.walk(ctx, n, c, targets, o.worst, rng); v != nil {
			o.worst, o.violation = x, v
		}
	}
	if o.violation != nil {
		return o
	}
	if ctx.Err() != nil {
		return nil // the attack was cut: n stays open
	}
	o.split = t.splitCoordinate(n, c, targets[0], slices.Min(lf) > 0)
	return o
}

// margins returns certified lower bounds of f_c - f_j and g_c - g_j on
// n's box, for j != c in increasing order: symbolic bounds, and optimised
// slopes where those leave a margin open. f's are the parent's when it
// proved them all positive for class c (n.provedF). Once ctx is done it
// returns ctx's error.
func (t *top1) margins(ctx context.Context, n *top1Node, c int) (lf, lg []float64, err error) {
	box, boxG := spec.Box{Lo: n.lo, Hi: n.hi}, t.gBox(n)
	fDone := n.provedF != nil && n.provedClass == c
	if fDone {
		lf = n.provedF
	}
	for _, m := range []bounds.Method{bounds.MethodSymbolic, bounds.MethodOptimised} {
		opts := bounds.DefaultOptions()
		opts.Method = m
		opts.Optimise.Iterations = t.opts.OptimiseIterations
		opts.Optimise.Step = t.opts.OptimiseStep
		if !fDone {
			if lf, err = lowerOutputs(ctx, t.margF[c], box, opts, lf); err != nil {
				return nil, nil, err
			}
		}
		if lg, err = lowerOutputs(ctx, t.margG[c], boxG, opts, lg); err != nil {
			return nil, nil, err
		}
		if slices.Min(lf) > 0 && slices.Min(lg) > 0 {
			break
		}
	}
	return lf, lg, nil
}

// lowerOutputs returns the lower bounds of the outputs of f on box, each
// the larger of its bound by opts and prev[k] (prev nil: none), or ctx's
// error once ctx is done.
func lowerOutputs(ctx context.Context, f *nn.Network, box spec.Box, opts bounds.Options, prev []float64) ([]float64, error) {
	net, err := bounds.SingleContext(ctx, f, box, opts)
	if err != nil {
		return nil, fmt.Errorf("verify: bounding the margins on %v..%v: %w", box.Lo, box.Hi, err)
	}
	out := net.Post[len(net.Post)-1]
	lo := make([]float64, len(out))
	for k, iv := range out {
		lo[k] = iv.Lo
		if prev != nil {
			lo[k] = max(lo[k], prev[k])
		}
	}
	return lo, nil
}

// targets returns up to top1Targets classes j != c whose margin f_c - f_j
// or g_c - g_j is not proved positive, smallest bound first (ties to the
// smaller j); lf and lg are indexed as margins (j != c in order).
func (t *top1) targets(c int, lf, lg []float64) []int {
	type cand struct {
		j   int
		low float64
	}
	var cs []cand
	for i := range lf {
		if low := min(lf[i], lg[i]); low <= 0 {
			j := i
			if i >= c {
				j = i + 1
			}
			cs = append(cs, cand{j, low})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(a.low, b.low) })
	out := make([]int, 0, top1Targets)
	for _, a := range cs[:min(len(cs), top1Targets)] {
		out = append(out, a.j)
	}
	return out
}

// marginNetwork returns f followed by the affine layer of the margins
// y_c - y_j, j != c in increasing order: its outputs' bounds are those
// of the margins back-substituted through f.
func marginNetwork(f *nn.Network, c int) (*nn.Network, error) {
	m := f.OutputSize()
	w := mat.NewDense(m-1, m, nil)
	for i := range m - 1 {
		j := i
		if i >= c {
			j = i + 1
		}
		w.Set(i, c, 1)
		w.Set(i, j, -1)
	}
	out := &nn.Network{Layers: append(slices.Clip(f.Layers), nn.AffineLayer(w, make([]float64, m-1))), Input: f.Input}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("verify: margins of class %d: %w", c, err)
	}
	return out, nil
}

// splitCoordinate returns the coordinate of n's box to split (splitTop1)
// by the gradients of f_c - f_j and g_c - g_j at the centre, j the target
// of the smallest margin; fDone says f's margins are proved on n.
func (t *top1) splitCoordinate(n *top1Node, c, j int, fDone bool) int {
	x := centre(n.lo, n.hi)
	tr := top1Traces{search.NewTrace(t.f), search.NewTrace(t.g)}
	_, _, df, dg := t.marginGradients(tr, x, c, j)
	return t.splitTop1(n, df, dg, fDone)
}
