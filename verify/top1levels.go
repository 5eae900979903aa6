package verify

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// The level search: a top-1 attack on the levels of g's input quantiser.
//
// An int8 g's outputs are on its output quantiser's grid, so its margin
// g_c - g_j is flat over most moves of an attack, and a tie or a flip
// hides behind a few rounding steps. The level search follows the margin
// before that quantiser (g's raw logits: rawLast), which moves with
// every change of g's input levels:
//
//  1. levelSteps sign-gradient steps on the raw margin (through the
//     hidden quantisers as if q(x) = x), which end near a vertex of the
//     box;
//  2. coordinate descent: for each input in a random order, each level of
//     g's input quantiser on the box is tried and the one of smallest
//     raw margin kept, sweep after sweep until a sweep gains nothing.
//
// The descent is greedy, and where it ends depends on the order of the
// inputs, so both steps run again, from the centre of the box first, then
// from random vertices and points, until the evaluations run out.
//
// Every point where g's class is not c (or tied) is checked by CheckTop1.

// levelSteps is the number of sign-gradient steps before the level
// search's coordinate descent.
const levelSteps = 30

// rawLast returns g with the quantisers of its last layer dropped (g
// itself if it has none): its outputs are g's logits before the output
// quantiser.
func rawLast(g *nn.Network) *nn.Network {
	k := len(g.Layers) - 1
	if g.Layers[k].Pre == nil && g.Layers[k].Post == nil {
		return g
	}
	raw := &nn.Network{Layers: slices.Clone(g.Layers), Input: g.Input}
	raw.Layers[k].Pre, raw.Layers[k].Post = nil, nil
	return raw
}

// levels runs the level search (above) on n's box for g leaving class c
// for j, for each of the walkTargets classes j of smallest raw margin at
// the centre (rawTargets), within Options.RootLevels evaluations of g for
// each; it returns the first disagreement CheckTop1 proves, with its
// input, or nil. It runs when g quantises its input and the pairing is
// SameInput. Once ctx is done it stops, returning nil.
func (t *top1) levels(ctx context.Context, n *top1Node, c int, rng *rand.Rand) ([]float64, *Top1Point) {
	q := t.g.Input
	if t.opts.RootLevels == 0 || t.in.Pairing != spec.SameInput || q == nil {
		return nil, nil
	}
	grid := levelGrid(q, n.lo, n.hi)
	trG, trRaw := search.NewTrace(t.g), search.NewTrace(t.rawG)
	for _, j := range t.rawTargets(trRaw, centre(n.lo, n.hi), c) {
		evals := 0
		var cex *Top1Point
		// margin returns g's raw margin at x, checking x for a
		// disagreement where g leaves c.
		margin := func(x []float64) float64 {
			evals++
			yg, err := trG.Reforward(x)
			if err != nil {
				panic(err) // the dimensions were checked by DecideTop1
			}
			if classOrTie(yg) != c && cex == nil {
				p, st, err := CheckTop1(t.f, t.g, x, x)
				if err != nil {
					panic(err)
				}
				if st == Violated {
					cex = p
				}
			}
			y, err := trRaw.Reforward(x)
			if err != nil {
				panic(err)
			}
			return y[c] - y[j]
		}
		v := make([]float64, t.m)
		v[c], v[j] = 1, -1
		for r := 0; evals < t.opts.RootLevels && ctx.Err() == nil; r++ {
			x := centre(n.lo, n.hi)
			for i := range x {
				switch {
				case r == 0:
				case r%2 == 1:
					x[i] = []float64{n.lo[i], n.hi[i]}[rng.IntN(2)]
				default:
					x[i] = clamp(n.lo[i]+rng.Float64()*(n.hi[i]-n.lo[i]), n.lo[i], n.hi[i])
				}
			}
			for s := range levelSteps {
				if margin(x); cex != nil {
					return x, cex
				}
				d := trRaw.Backward(v)
				a := 0.5 * (1 - float64(s)/levelSteps)
				for i := range x {
					x[i] = clamp(x[i]-a*(n.hi[i]-n.lo[i])*sign(d[i]), n.lo[i], n.hi[i])
				}
			}
			cur := margin(x)
			for gained := true; gained && cex == nil && evals < t.opts.RootLevels && ctx.Err() == nil; {
				gained = false
				for _, i := range rng.Perm(len(x)) {
					keep := x[i]
					for _, lv := range grid[i] {
						if lv == keep || evals >= t.opts.RootLevels {
							continue
						}
						x[i] = lv
						if m := margin(x); m < cur {
							cur, keep, gained = m, lv, true
						}
						if cex != nil {
							return x, cex
						}
					}
					x[i] = keep
				}
			}
		}
	}
	return nil, nil
}

// levelGrid returns, for each input i, one point of [lo_i, hi_i] in each
// cell of q's grid that meets it: the level itself where it lies in the
// box, else the end of the box that rounds to it.
func levelGrid(q *nn.Quantiser, lo, hi []float64) [][]float64 {
	out := make([][]float64, len(lo))
	for i := range lo {
		s, _ := q.At(i)
		a, b := q.Apply(i, lo[i]), q.Apply(i, hi[i])
		for k := 0; ; k++ {
			lv := a + float64(k)*s
			if lv > b+s/4 {
				break
			}
			x := clamp(lv, lo[i], hi[i])
			switch {
			case q.Apply(i, x) == q.Apply(i, lv):
			case q.Apply(i, lo[i]) == q.Apply(i, lv):
				x = lo[i]
			default:
				x = hi[i]
			}
			out[i] = append(out[i], x)
		}
	}
	return out
}

// rawTargets returns the walkTargets classes j != c of smallest raw
// margin g_c - g_j at x (ties to the smaller j), tr a trace of t.rawG.
func (t *top1) rawTargets(tr *search.Trace, x []float64, c int) []int {
	y, err := tr.Reforward(x)
	if err != nil {
		panic(err) // the dimensions were checked by DecideTop1
	}
	var js []int
	for j := range y {
		if j != c {
			js = append(js, j)
		}
	}
	slices.SortStableFunc(js, func(a, b int) int { return cmp.Compare(y[b], y[a]) })
	return js[:min(len(js), walkTargets)]
}
