package search

import (
	"math"
	"slices"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// The annealing phase: a search on the grid of a quantised network's
// input.
//
// The quantisers of an int8 network are flat almost everywhere, so
// gradients cannot see its roundings, and the error, a sum of sawtooths
// in every layer, is too rugged for the local searches' steps. But the
// int8 network only sees its input on the grid of its input quantiser:
// the error at a grid point u is that of the quantised network at u and
// of the float network anywhere in u's cell, where it is nearly linear.
// So the phase walks the grid (moves of one step on one to three
// coordinates), places x in each cell on the side the float network's
// gradient wants (the input rounding x - q(x) is free per coordinate
// within the cell: the roundings of the quantisers above are what the
// walk chooses), and accepts moves by the Metropolis rule at a
// temperature that falls geometrically from annealT0 to annealT1 times
// the error at its start. Every point it evaluates is an input of the
// box, evaluated like any other.
//
// Without an input quantiser the grid is of annealSteps steps per
// coordinate of the box, and x is the grid point.

// The annealing schedule: the first and last temperatures, relative to
// the largest error found; the grid of a coordinate without an input
// quantiser (steps per width of the box); and how often the float
// network's gradient that places x in its cell is refreshed (on a move
// accepted at every annealRefresh-th step).
const (
	annealT0      = 0.035
	annealT1      = 1e-4
	annealSteps   = 256
	annealRefresh = 8
)

// quantisedSide returns the index (1 or 2) of the network whose input
// grid the annealing phase walks, with its input quantiser (nil: none):
// the second if it has quantisers, else the first; 0 when neither has or
// the pairing is not SameInput.
func (p *problem) quantisedSide() (int, *nn.Quantiser) {
	if p.in.Pairing != spec.SameInput {
		return 0, nil
	}
	if ok, q := p.m2.quantisers(); ok {
		return 2, q
	}
	if ok, q := p.m1.quantisers(); ok {
		return 1, q
	}
	return 0, nil
}

// anneal runs the annealing phase from the best point found, for at most
// Options.AnnealEvals evaluations (fewer when the search's budget has
// fewer left: the schedule is fitted to what it can run).
func (s *searcher) anneal() {
	m, iq := s.p.quantisedSide()
	n := s.opts.AnnealEvals
	if s.opts.MaxEvals > 0 {
		n = min(n, s.evals0+s.opts.MaxEvals-s.p.evals)
	}
	if m == 0 || n < 2 {
		return
	}
	if s.best == nil { // every other phase disabled
		s.eval(slices.Clone(s.p.lo))
	}
	p, d := s.p, s.p.dim()
	step, ulo, uhi := make([]float64, d), make([]float64, d), make([]float64, d)
	for j := range step {
		if iq != nil {
			step[j], _ = iq.At(j)
			ulo[j], uhi[j] = iq.Apply(j, p.lo[j]), iq.Apply(j, p.hi[j])
		} else {
			step[j] = s.width(j) / annealSteps
			ulo[j], uhi[j] = p.lo[j], p.hi[j]
		}
	}
	u := slices.Clone(s.best)
	if iq != nil {
		for j, v := range u {
			u[j] = iq.Apply(j, v)
		}
	}
	gx := s.floatGradient(m, s.best)
	x := s.placed(iq, u, gx)
	v := s.eval(x)
	for it := range n - 1 {
		if s.done() {
			return
		}
		temp := annealT0 * s.bestV * math.Pow(annealT1/annealT0, float64(it)/float64(n-1))
		w := slices.Clone(u)
		for range 1 + s.rng.IntN(3) {
			j := s.rng.IntN(d)
			w[j] = clip(w[j]+float64(2*s.rng.IntN(2)-1)*step[j], ulo[j], uhi[j])
		}
		y := s.placed(iq, w, gx)
		vy := s.eval(y)
		if vy > v || temp > 0 && s.rng.Float64() < math.Exp((vy-v)/temp) {
			u, v = w, vy
			if it%annealRefresh == 0 { // the float gradient changes slowly: refresh it now and then
				gx = s.floatGradient(m, y)
			}
		}
	}
}

// placed returns the input in the cell of the grid point u of the
// quantiser q (nil: u itself) on the side of each coordinate that g
// points to, within the box.
func (s *searcher) placed(q *nn.Quantiser, u, g []float64) []float64 {
	x := make([]float64, len(u))
	for j, c := range u {
		x[j] = clip(c, s.p.lo[j], s.p.hi[j])
		if q == nil || g[j] == 0 {
			continue
		}
		sc, _ := q.At(j)
		if y := clip(c+math.Copysign(0.499*sc, g[j]), s.p.lo[j], s.p.hi[j]); q.Apply(j, y) == c {
			x[j] = y
		}
	}
	return x
}

// floatGradient returns the gradient at x of the error through the
// network other than the m-th alone (the m-th held at its value): where
// the quantised network is constant, on a cell of its input grid, the
// error moves with the other only. It counts as one evaluation.
func (s *searcher) floatGradient(m int, x []float64) []float64 {
	p := s.p
	p.evals++
	if m == 2 {
		y1, back := p.m1.traced(x)
		dr := make([]float64, len(y1))
		p.q.MeasureGrad(y1, p.m2.value(x), dr)
		return back(dr)
	}
	y2, back := p.m2.traced(x)
	dr := make([]float64, len(y2))
	p.q.MeasureGrad(p.m1.value(x), y2, dr)
	for j := range dr {
		dr[j] = -dr[j]
	}
	return back(dr)
}
