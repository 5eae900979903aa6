package search

import (
	"math"
	"math/rand/v2"
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
	if m == 0 {
		return
	}
	if s.best == nil && !s.done() { // every other phase disabled
		s.eval(slices.Clone(s.p.lo))
	}
	n := s.opts.AnnealEvals
	if s.opts.MaxEvals > 0 {
		n = min(n, s.evals0+s.opts.MaxEvals-s.p.evals)
	}
	if s.best == nil || n < 3 {
		return
	}
	// The gradients that place the walk's points (Place) count against
	// the budget too: Stop ends the walk before a move or a placement
	// would exceed it.
	w := Walk{Grid: iq, Box: spec.Box{Lo: s.p.lo, Hi: s.p.hi}, Evals: n,
		Value: s.eval,
		Place: func(x []float64) []float64 { return s.floatGradient(m, x) },
		Stop:  s.done}
	w.Run(s.best, s.rng)
}

// Walk is the annealing phase's walk on an input grid, for objectives
// other than MaxError's (package verify's top-1 attack): it maximises
// Value over Box from a start, in Evals evaluations of Value.
type Walk struct {
	// Grid is the input quantiser whose grid is walked (nil: a grid of
	// annealSteps steps per width of Box, x the grid point).
	Grid *nn.Quantiser
	Box  spec.Box
	// Value is the objective. The temperature is relative to the largest
	// |Value| seen.
	Value func(x []float64) float64
	// Place returns, at x, the gradient whose signs place x in its cell
	// of Grid (the objective's gradient through the networks that see x
	// itself); it is called on the start and now and then on accepted
	// moves (nil: x is the cell's grid point).
	Place func(x []float64) []float64
	// Evals is the number of evaluations of Value (below 3: the start
	// only).
	Evals int
	// Stop, if not nil, ends the walk when it returns true (checked
	// before each move and each later call of Place).
	Stop func() bool
}

// Run walks from start with the random choices of rng and returns the
// best point it evaluated and its value.
func (w *Walk) Run(start []float64, rng *rand.Rand) ([]float64, float64) {
	if w.Evals < 3 {
		return slices.Clone(start), w.Value(start)
	}
	lo, hi, iq, d := w.Box.Lo, w.Box.Hi, w.Grid, len(start)
	step, ulo, uhi := make([]float64, d), make([]float64, d), make([]float64, d)
	u := slices.Clone(start)
	for j := range step {
		if iq != nil {
			step[j], _ = iq.At(j)
			ulo[j], uhi[j] = iq.Apply(j, lo[j]), iq.Apply(j, hi[j])
			u[j] = iq.Apply(j, u[j])
		} else {
			step[j] = min(hi[j]-lo[j], math.MaxFloat64) / annealSteps
			ulo[j], uhi[j] = lo[j], hi[j]
		}
	}
	var gx []float64
	if w.Place != nil {
		gx = w.Place(start)
	}
	// The start and its cell's placement: the walk is at the better.
	best, bestV := slices.Clone(start), w.Value(start)
	x := placed(iq, u, gx, lo, hi)
	v := w.Value(x)
	if v < bestV {
		v = bestV
	} else {
		best, bestV = x, v
	}
	scale := math.Abs(v)
	for it := range w.Evals - 2 {
		if w.Stop != nil && w.Stop() {
			break
		}
		temp := annealT0 * scale * math.Pow(annealT1/annealT0, float64(it)/float64(w.Evals-2))
		u2 := slices.Clone(u)
		for range 1 + rng.IntN(3) {
			j := rng.IntN(d)
			u2[j] = clip(u2[j]+float64(2*rng.IntN(2)-1)*step[j], ulo[j], uhi[j])
		}
		y := placed(iq, u2, gx, lo, hi)
		vy := w.Value(y)
		scale = max(scale, math.Abs(vy))
		if vy > bestV {
			best, bestV = y, vy
		}
		if vy > v || temp > 0 && rng.Float64() < math.Exp((vy-v)/temp) {
			u, v = u2, vy
			if w.Place != nil && it%annealRefresh == 0 && (w.Stop == nil || !w.Stop()) { // the gradient changes slowly: refresh it now and then
				gx = w.Place(y)
			}
		}
	}
	return best, bestV
}

// placed returns the input in the cell of the grid point u of the
// quantiser q (nil: u itself) on the side of each coordinate that g (nil:
// none) points to, within [lo, hi].
func placed(q *nn.Quantiser, u, g, lo, hi []float64) []float64 {
	x := make([]float64, len(u))
	for j, c := range u {
		x[j] = clip(c, lo[j], hi[j])
		if q == nil || g == nil || g[j] == 0 {
			continue
		}
		sc, _ := q.At(j)
		if y := clip(c+math.Copysign(0.499*sc, g[j]), lo[j], hi[j]); q.Apply(j, y) == c {
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
