package search

import (
	"math"
	"slices"

	"github.com/nnbound/nnbound/spec"
)

// The phases of a search, in the order MaxError runs them.

// exact evaluates the exact candidates, if the instance allows, and
// reports whether it did.
func (s *searcher) exact() bool {
	p := s.p
	xs1, xs2, ok := exactCandidates(p, s.opts.MaxPieces)
	if !ok {
		return false
	}
	if p.in.Pairing != spec.Independent {
		for _, x := range xs1 {
			if s.done() {
				return false
			}
			s.eval([]float64{x})
		}
		return true
	}
	return s.exactIndependent(xs1, xs2)
}

// exactIndependent maximises the error over pairs of breakpoints of the two
// networks: over all pairs when there are few enough, else, for a scalar
// error (C set or one output), separably.
func (s *searcher) exactIndependent(xs1, xs2 []float64) bool {
	p := s.p
	y1 := make([][]float64, len(xs1))
	y2 := make([][]float64, len(xs2))
	for i, x := range xs1 {
		y1[i] = forward(p.f1, []float64{x}, nil)
	}
	for i, x := range xs2 {
		y2[i] = forward(p.f2, []float64{x}, nil)
	}
	bi, bj := 0, 0
	if p.q.C != nil || p.f1.OutputSize() == 1 {
		// |s1 - s2| is largest at an extreme of s1 and an extreme of s2.
		scalar := func(y []float64) float64 {
			if p.q.C == nil {
				return y[0]
			}
			t := 0.0
			for j, c := range p.q.C {
				t += c * y[j]
			}
			return t
		}
		ext := func(ys [][]float64) []int {
			lo, hi := 0, 0
			for i, y := range ys {
				if scalar(y) < scalar(ys[lo]) {
					lo = i
				}
				if scalar(y) > scalar(ys[hi]) {
					hi = i
				}
			}
			return []int{lo, hi}
		}
		best := -1.0
		for _, i := range ext(y1) {
			for _, j := range ext(y2) {
				if v := p.q.Measure(y1[i], y2[j]); v > best {
					best, bi, bj = v, i, j
				}
			}
		}
	} else {
		if len(xs1)*len(xs2) > 20*s.opts.MaxPieces {
			return false
		}
		best := -1.0
		for i := range y1 {
			for j := range y2 {
				if v := p.q.Measure(y1[i], y2[j]); v > best {
					best, bi, bj = v, i, j
				}
			}
		}
	}
	p.evals += len(xs1) + len(xs2) - 1
	s.eval([]float64{xs1[bi], xs2[bj]})
	return true
}

// grid evaluates the regular grid of the search box when it has at most
// two dimensions.
func (s *searcher) grid() {
	d := s.p.dim()
	g := s.opts.gridSize(d)
	if g <= 0 {
		return
	}
	at := func(i, k int) float64 {
		if g == 1 {
			return s.p.lo[i]/2 + s.p.hi[i]/2
		}
		if k == g-1 {
			return s.p.hi[i]
		}
		return lerp(s.p.lo[i], s.p.hi[i], float64(k)/float64(g-1))
	}
	if d == 1 {
		for k := range g {
			if s.done() {
				return
			}
			s.eval([]float64{at(0, k)})
		}
		return
	}
	for k := range g {
		for m := range g {
			if s.done() {
				return
			}
			s.eval([]float64{at(0, k), at(1, m)})
		}
	}
}

// corners evaluates the corners of the search box (at most MaxCorners of
// them, chosen at random when there are more).
func (s *searcher) corners() {
	d := s.p.dim()
	all := d < 30 && 1<<d <= s.opts.MaxCorners
	count := s.opts.MaxCorners
	if all {
		count = 1 << d
	}
	for c := range count {
		if s.done() {
			return
		}
		z := make([]float64, d)
		for i := range z {
			bit := false
			if all {
				bit = c>>i&1 == 1
			} else {
				bit = s.rng.IntN(2) == 1
			}
			z[i] = s.p.lo[i]
			if bit {
				z[i] = s.p.hi[i]
			}
		}
		s.eval(z)
	}
}

// random evaluates uniform random points of the search box.
func (s *searcher) random() {
	for range s.opts.Samples {
		if s.done() {
			return
		}
		s.eval(s.uniform())
	}
}

// uniform returns a uniform random point of the search box.
func (s *searcher) uniform() []float64 {
	z := make([]float64, s.p.dim())
	for i := range z {
		z[i] = lerp(s.p.lo[i], s.p.hi[i], s.rng.Float64())
	}
	return z
}

// local runs a local search from each point of the pool.
func (s *searcher) local() {
	starts := slices.Clone(s.pool)
	for _, st := range starts {
		if s.done() {
			return
		}
		z, v := s.ascend(slices.Clone(st.z), st.v)
		if !s.opts.SignAscent {
			s.pattern(z, v)
		}
	}
}

// zoom samples uniformly in boxes around each of the ZoomStarts best
// points, shrinking the box by half each round (ZoomRounds rounds of
// ZoomSamples points): the error of a compressed network is rugged at small
// scales, where gradients and coordinate moves stall but sampling near a
// good point still climbs.
func (s *searcher) zoom() {
	d := s.p.dim()
	starts := s.pool[:min(len(s.pool), s.opts.ZoomStarts)]
	centres := make([]scored, len(starts))
	for i, st := range starts {
		centres[i] = scored{slices.Clone(st.z), st.v}
	}
	if len(centres) == 0 && s.best != nil {
		centres = []scored{{slices.Clone(s.best), s.bestV}}
	}
	for _, c := range centres {
		centre, centreV := c.z, c.v // evaluated already
		radius := 0.25
		for range s.opts.ZoomRounds {
			best, bestV := centre, centreV
			for range s.opts.ZoomSamples {
				if s.done() {
					return
				}
				z := make([]float64, d)
				for i := range z {
					w := s.width(i) * radius
					z[i] = centre[i] + w*(2*s.rng.Float64()-1)
				}
				if v := s.eval(s.project(z)); v > bestV {
					best, bestV = z, v
				}
			}
			centre, centreV = best, bestV
			radius /= 2
		}
	}
}

// project clips z into the search box, in place (NaN to the lower end).
func (s *searcher) project(z []float64) []float64 {
	for i := range z {
		z[i] = clip(z[i], s.p.lo[i], s.p.hi[i])
	}
	return z
}

// width returns the width of coordinate i of the search box, at most
// math.MaxFloat64 (hi - lo overflows on a box wider than that), so that
// steps scaled by it stay finite or, at worst, overflow to an infinity
// that project clips.
func (s *searcher) width(i int) float64 {
	return min(s.p.hi[i]-s.p.lo[i], math.MaxFloat64)
}

// lerp returns lo + t (hi - lo) for t in [0, 1], in [lo, hi] also when
// hi - lo overflows.
func lerp(lo, hi, t float64) float64 {
	v := lo + t*(hi-lo)
	if math.IsInf(hi-lo, 0) {
		v = (1-t)*lo + t*hi
	}
	return clip(v, lo, hi)
}

// clip returns v clipped to [lo, hi], and lo for NaN.
func clip(v, lo, hi float64) float64 {
	switch {
	case !(v >= lo):
		return lo
	case v > hi:
		return hi
	}
	return v
}

// ascend runs projected gradient and sign-gradient ascent from z, with a
// step (a fraction of the box) grown on success and cut on failure, and
// returns the best point and its value. With Options.SignAscent it takes
// the sign step only, evaluated by the gradient at its point, which the
// next step then reuses where the step succeeds.
func (s *searcher) ascend(z []float64, v float64) ([]float64, float64) {
	d := s.p.dim()
	step := 0.25
	var g []float64 // the gradient at z, nil until computed
	for range s.opts.Iters {
		cost := 2 // the two points of a step, or the gradient at the sign step's point
		if s.opts.SignAscent {
			cost = 1
		}
		if g == nil {
			cost++
		}
		if step < 1e-12 || s.doneBefore(cost) {
			break
		}
		if g == nil {
			_, g = s.p.gradient(z)
		}
		scale := 0.0
		for i := range g {
			scale = max(scale, math.Abs(g[i])*s.width(i))
		}
		if scale == 0 {
			break
		}
		zs, zg := make([]float64, d), make([]float64, d)
		for i := range z {
			w := s.width(i)
			zs[i] = z[i] + step*w*sign(g[i])
			zg[i] = z[i] + step*w*(w*(g[i]/scale))
		}
		if s.opts.SignAscent {
			vs, gs := s.p.gradient(s.project(zs))
			s.consider(zs, vs)
			if vs > v {
				z, v, g, step = zs, vs, gs, min(2*step, 1)
			} else {
				step /= 4
			}
			continue
		}
		vs, vg := s.eval(s.project(zs)), s.eval(s.project(zg))
		switch {
		case vs > v && vs >= vg:
			z, v, step = zs, vs, min(2*step, 1)
		case vg > v:
			z, v, step = zg, vg, min(2*step, 1)
		default:
			step /= 4
		}
		g = nil
	}
	return z, v
}

// pattern runs a coordinate pattern search from z: move one coordinate by
// +-h when that improves the error, halving h when no move does.
func (s *searcher) pattern(z []float64, v float64) {
	h := 0.125
	budget := -1 // evaluations left, -1 for no cap (Options.PatternCoords)
	if c := s.opts.PatternCoords; c > 0 {
		budget = 2 * s.opts.Iters * c
	}
	for range s.opts.Iters {
		if h < 1e-10 || s.done() {
			return
		}
		improved := false
		for i := range z {
			w := s.width(i)
			if w == 0 {
				continue
			}
			for _, dir := range []float64{1, -1} {
				if budget == 0 || s.done() {
					return
				}
				budget--
				y := slices.Clone(z)
				y[i] += dir * h * w
				if u := s.eval(s.project(y)); u > v {
					z, v, improved = y, u, true
					break
				}
			}
		}
		if !improved {
			h /= 2
		}
	}
}

// sign returns the sign of v (0 for 0).
func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
