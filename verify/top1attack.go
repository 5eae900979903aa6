package verify

import (
	"context"
	"math/rand/v2"
	"slices"

	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// top1Traces holds the evaluations of f and g at one point, their storage
// reused from point to point; each goroutine has its own.
type top1Traces struct{ f, g *search.Trace }

// marginGradients returns the margins mf = f_c - f_j at x and mg = g_c -
// g_j at X2(x), their (sub)gradients with respect to x (through an input
// quantiser, as if q(x) = x).
func (t *top1) marginGradients(tr top1Traces, x []float64, c, j int) (mf, mg float64, df, dg []float64) {
	mf, mg, df, dg, _, _ = t.marginStep(tr, x, c, j)
	return mf, mg, df, dg
}

// marginStep is marginGradients, also returning the float64 classes of f
// and g at x (classOrTie: -1 on a tie at the top).
func (t *top1) marginStep(tr top1Traces, x []float64, c, j int) (mf, mg float64, df, dg []float64, cf, cg int) {
	yf, err := tr.f.Reforward(x)
	if err != nil {
		panic(err) // the dimensions were checked by DecideTop1
	}
	mf, cf = yf[c]-yf[j], classOrTie(yf)
	yg, err := tr.g.Reforward(t.in.X2(x))
	if err != nil {
		panic(err)
	}
	mg, cg = yg[c]-yg[j], classOrTie(yg)
	v := make([]float64, t.m)
	v[c], v[j] = 1, -1
	df = append([]float64(nil), tr.f.Backward(v)...)
	dg = append([]float64(nil), tr.g.Backward(v)...)
	return mf, mg, df, dg, cf, cg
}

// attack searches n's box for an input where f and g pick different
// classes, c being f's class at the centre: for each target class j, by
// sign-gradient ascent on
//
//	min(g_j - g_c, f_c - f_j)   (g moves to j, f keeps c)   and
//	min(f_j - f_c, g_c - g_j)   (f moves to j, g keeps c),
//
// positive exactly where the networks disagree that way, from the
// parent's best point, the centre and starts random points drawn with
// rng. Every point where the float64 classes differ or tie is checked by
// CheckTop1; the first it proves is returned as the violation. The best
// point of the ascents is returned too. Once ctx is done no further
// ascent starts.
func (t *top1) attack(ctx context.Context, n *top1Node, c int, targets []int, starts int, rng *rand.Rand) ([]float64, *Top1Point) {
	var points [][]float64
	if n.warm != nil {
		w := make([]float64, len(n.warm))
		for i := range w {
			w[i] = clamp(n.warm[i], n.lo[i], n.hi[i])
		}
		points = append(points, w)
	}
	points = append(points, centre(n.lo, n.hi))
	for range starts {
		p := make([]float64, len(n.lo))
		for i := range p {
			p[i] = clamp(n.lo[i]+rng.Float64()*(n.hi[i]-n.lo[i]), n.lo[i], n.hi[i])
		}
		points = append(points, p)
	}
	tr := top1Traces{search.NewTrace(t.f), search.NewTrace(t.g)}
	var best []float64
	bestV := 0.0
	var flipped [][]float64
	for _, j := range targets {
		for _, gMoves := range []bool{true, false} {
			for _, p := range points {
				if ctx.Err() != nil {
					return best, nil
				}
				x, v, fl, cex := t.ascendTop1(tr, p, n.lo, n.hi, c, j, gMoves)
				if cex != nil {
					return x, cex
				}
				if best == nil || v > bestV {
					best, bestV = x, v
				}
				if fl != nil && len(flipped) < maxBisections {
					flipped = append(flipped, fl)
				}
			}
		}
	}
	x0 := centre(n.lo, n.hi)
	for _, fl := range flipped {
		if cex := t.bisect(x0, fl, c); cex != nil {
			return cex.X, cex
		}
	}
	return best, nil
}

// walk searches n's box for an input where g leaves class c for j while
// f keeps c, for each of the first walkTargets targets j, by the walk on
// the grid of g's input quantiser (search.Walk) from start, maximising
// the attack's objective min(g_j - g_c, f_c - f_j): g is constant on the
// grid's cells, where the ascents' steps cannot see its roundings, and f
// is placed in each cell by the gradient of f_c - f_j. It runs when g
// has quantisers and the pairing is SameInput; every point where the
// classes differ or tie is checked by CheckTop1, and the first it proves
// is returned with its input. Once ctx is done the walk stops.
func (t *top1) walk(ctx context.Context, n *top1Node, c int, targets []int, start []float64, rng *rand.Rand) ([]float64, *Top1Point) {
	if t.opts.RootWalk == 0 || t.in.Pairing != spec.SameInput || !t.g.Quantised() {
		return nil, nil
	}
	tr := top1Traces{search.NewTrace(t.f), search.NewTrace(t.g)}
	var cex *Top1Point
	var at []float64
	for _, j := range targets[:min(len(targets), walkTargets)] {
		w := search.Walk{Grid: t.g.Input, Box: spec.Box{Lo: n.lo, Hi: n.hi}, Evals: t.opts.RootWalk,
			Value: func(x []float64) float64 {
				yf, err := tr.f.Reforward(x)
				if err != nil {
					panic(err) // the dimensions were checked by DecideTop1
				}
				mf, cf := yf[c]-yf[j], classOrTie(yf)
				yg, err := tr.g.Reforward(x)
				if err != nil {
					panic(err)
				}
				mg, cg := yg[c]-yg[j], classOrTie(yg)
				if (cf != cg || cf < 0) && cex == nil {
					p, st, err := CheckTop1(t.f, t.g, x, x)
					if err != nil {
						panic(err)
					}
					if st == Violated {
						cex, at = p, slices.Clone(x)
					}
				}
				return min(-mg, mf)
			},
			Place: func(x []float64) []float64 {
				_, _, df, _ := t.marginGradients(tr, x, c, j)
				return df
			},
			Stop: func() bool { return cex != nil || ctx.Err() != nil },
		}
		if w.Run(start, rng); cex != nil {
			return at, cex
		}
	}
	return nil, nil
}

// walkTargets is the number of target classes the root's walk tries
// (walk), the first of attack's order.
const walkTargets = 3

// maxBisections is the number of points where both networks left the
// centre's class that a node's attack bisects towards (bisect).
const maxBisections = 4

// bisect searches the segment from a, where f's class is c and g agrees,
// to b, where both networks pick another class, for a disagreement, by
// bisection on f's class: the two networks change class at different
// points of the segment (where g is constant on the cells of an input
// quantiser, necessarily: within the cell of f's change g keeps one
// class), and the search closes in on f's change until a midpoint
// falls between the two, which CheckTop1 must then prove.
func (t *top1) bisect(a, b []float64, c int) *Top1Point {
	a, b = slices.Clone(a), slices.Clone(b)
	m := make([]float64, len(a))
	for range 60 {
		for i := range m {
			m[i] = a[i]/2 + b[i]/2
		}
		if slices.Equal(m, a) || slices.Equal(m, b) {
			return nil
		}
		cf, cg := classOrTie(t.evalF(m)), classOrTie(t.evalG(m))
		if cf != cg || cf < 0 {
			p, s, err := CheckTop1(t.f, t.g, m, t.in.X2(m))
			if err != nil {
				panic(err) // the dimensions were checked by DecideTop1
			}
			if s == Violated {
				return p
			}
		}
		if cf == c {
			copy(a, m)
		} else {
			copy(b, m)
		}
	}
	return nil
}

// ascendTop1 runs Options.AttackSteps steps of sign-gradient ascent on
// the objective of attack from x in [lo, hi], with steps shrinking from a
// quarter of the box's widths, and returns the best point and its value,
// the first point where both networks left class c for the same class
// (nil if none), or a point CheckTop1 proves a disagreement at.
func (t *top1) ascendTop1(tr top1Traces, x, lo, hi []float64, c, j int, gMoves bool) (best []float64, bestV float64, flipped []float64, cex *Top1Point) {
	cur := append([]float64(nil), x...)
	best = append([]float64(nil), x...)
	steps := t.opts.AttackSteps
	for s := 0; ; s++ {
		mf, mg, df, dg, cf, cg := t.marginStep(tr, cur, c, j)
		if cf != c && cf >= 0 && cf == cg && flipped == nil {
			flipped = append([]float64(nil), cur...)
		}
		if cf != cg || cf < 0 {
			p, st, err := CheckTop1(t.f, t.g, cur, t.in.X2(cur))
			if err != nil {
				panic(err) // the dimensions were checked by DecideTop1
			}
			if st == Violated {
				return cur, 0, flipped, p
			}
		}
		// value and gradient of min(a, b): the active term's
		a, da, b, db := -mg, dg, mf, df // g moves to j
		if !gMoves {
			a, da, b, db = -mf, df, mg, dg
		}
		v, grad, neg := b, db, false
		if a < b {
			v, grad, neg = a, da, true
		}
		if s == 0 || v > bestV {
			bestV = v
			copy(best, cur)
		}
		if s == steps {
			return best, bestV, flipped, nil
		}
		alpha := 0.25 * (1 - float64(s)/float64(steps))
		for i := range cur {
			g := sign(grad[i])
			if neg {
				g = -g
			}
			cur[i] = clamp(cur[i]+alpha*(hi[i]-lo[i])*g, lo[i], hi[i])
		}
	}
}
