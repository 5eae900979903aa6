package verify

import "math"

// Refutation by the sign search. Where the sign search gives up at a
// point whose gradient has the wrong sign, the atom is violated near it
// in float64, often on a sliver and by little: a pair the witness check
// can certify must span as much of the sliver as it can. steepestFall
// looks for it along the line through the point in the direction of the
// worst difference, and refute checks the pairs.

// fallPoints is the number of points at which steepestFall evaluates
// the line.
const fallPoints = 512

// steepestFall returns the pair of points p(a), p(b) = p(a) + step of
// the line p(s) = x + s dir inside the hull, 0 <= b - a <= 1, where c . f
// falls most from p(a) to p(b) among fallPoints evenly spaced points, or
// nil if it nowhere falls by more than C (the atom c . (f(p(b)) -
// f(p(a))) + C is then nowhere below 0 among them): where the
// gradient at x has the wrong sign, the largest violation along the line
// spans the stretch where it keeps it, which a pair about x alone may
// miss. fall is the atom's value at the pair. A float64 heuristic: the
// pair is checked by refute.
func (q *signSearch) steepestFall(x, dir []float64) (xa, step []float64, fall float64) {
	smin, smax := math.Inf(-1), math.Inf(1)
	for i, v := range dir {
		switch {
		case v > 0:
			smin, smax = max(smin, (q.hull.Lo[i]-x[i])/v), min(smax, (q.hull.Hi[i]-x[i])/v)
		case v < 0:
			smin, smax = max(smin, (q.hull.Hi[i]-x[i])/v), min(smax, (q.hull.Lo[i]-x[i])/v)
		}
	}
	if !(smin < smax) || math.IsInf(smin, 0) || math.IsInf(smax, 0) {
		return nil, nil, 0
	}
	at := func(s float64) []float64 {
		p := make([]float64, len(x))
		for i := range p {
			p[i] = min(max(x[i]+s*dir[i], q.hull.Lo[i]), q.hull.Hi[i])
		}
		return p
	}
	ss, phi := make([]float64, fallPoints), make([]float64, fallPoints)
	for k := range ss {
		ss[k] = smin + (smax-smin)*float64(k)/float64(fallPoints-1)
		y, err := q.f.Eval(at(ss[k]))
		if err != nil {
			return nil, nil, 0
		}
		for j, cj := range q.c {
			phi[k] += cj * y[j]
		}
	}
	ba, bb, best := -1, -1, -q.C // the atom phi(b) - phi(a) + C below 0
	for b := range phi {
		for a := b - 1; a >= 0 && ss[b]-ss[a] <= 1; a-- {
			if v := phi[b] - phi[a]; v < best {
				ba, bb, best = a, b, v
			}
		}
	}
	if ba < 0 {
		return nil, nil, 0
	}
	xa, xb := at(ss[ba]), at(ss[bb])
	step = make([]float64, len(x))
	for i := range step {
		step[i] = xb[i] - xa[i]
	}
	return xa, step, best + q.C
}

// refute looks for a counterexample among the pairs (x, x + t dir) and
// (x - t dir, x), t = 1, 1/2, 1/4, ... (as joint inputs: x_g - x_f on
// linked coordinates, x_g on the others), each projected into the input
// set and checked by CheckRelational.
func (s *relSearch) refute(x, dir []float64) *RelationalPoint {
	n := s.j.nf
	z := make([]float64, 2*n)
	for t := 1.0; t > 1e-12; t /= 2 {
		for _, back := range [2]float64{0, 1} {
			for i := range n {
				z[i] = x[i] - back*t*dir[i]
				z[n+i] = t * dir[i]
				if s.j.linked[i] < 0 {
					z[n+i] += z[i]
				}
			}
			if p := s.confirm(z); p != nil {
				return p
			}
		}
	}
	return nil
}
