package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// The best planes of a pair of ReLUs.
//
// The difference f(z, d) = phi2(z + d) - phi1(z) of two ReLUs or leaky
// ReLUs is piecewise linear on the region
//
//	R = { z in Z, d in D, z + d in Y },
//
// its pieces cut by the lines z = 0 and z + d = 0. A plane P is below f on
// R exactly when it is below f at the vertices of the pieces (f - P is
// linear on each piece), so the plane below f highest at a point c is the
// solution of a linear program in (A, B, C) whose optimum passes through
// three vertices: envelopePlanes tries every three, keeps those below f
// at every vertex, and returns the highest at c (and alike above). These
// are the convex and concave envelopes' tangent planes at c, at least as
// good there as any plane diffCandidates offers.
//
// Rounding. The vertices on the lines z + d = Y.Lo, Y.Hi are computed in
// float64, within delta = 2 u (|z| + |d| + |y|) of the true ones, and f
// and P are evaluated in float64; the plane's offset is lowered by its
// largest excess over f at the computed vertices plus the slope of
// f - P (at most 3 s + |A| + |B| in the max-norm, s the largest slope) times
// delta plus a bound of the evaluation errors.

// envelopePlanes returns the planes below and above f (see above) highest
// and lowest at (ca, cd) for the bounds z, d and y of z, d and z + d, if
// both activations are ReLU or leaky ReLU and the region has vertices.
func envelopePlanes(act1, act2 nn.Activation, z, d, y Interval, ca, cd float64) (lower, upper plane, ok bool) {
	kink0 := func(a nn.Activation) bool { return a.Kind == nn.ReLU || a.Kind == nn.LeakyReLU }
	if !kink0(act1) || !kink0(act2) {
		return plane{}, plane{}, false
	}
	pts := regionVertices(z, d, y)
	if len(pts) < 3 {
		return plane{}, plane{}, false
	}
	f := make([]float64, len(pts))
	for i, p := range pts {
		f[i] = act2.Apply(p[0]+p[1]) - act1.Apply(p[0])
	}
	slope := 1.0
	for _, a := range []nn.Activation{act1, act2} {
		if a.Kind == nn.LeakyReLU {
			slope = max(slope, math.Abs(a.Alpha))
		}
	}
	mz, md, my := z.Mag(), d.Mag(), y.Mag()
	delta := 2 * outward.Unit * (mz + md + my)
	lower, okL := bestEnvelope(pts, f, ca, cd, 1)
	upper, okU := bestEnvelope(pts, f, ca, cd, -1)
	if !okL || !okU {
		return plane{}, plane{}, false
	}
	lower = envelopeMargin(lower, pts, f, 1, slope, mz, md, delta)
	upper = envelopeMargin(upper, pts, f, -1, slope, mz, md, delta)
	return lower, upper, true
}

// regionVertices returns points (z, d) of the region R that include the
// vertices of its pieces (see above); those on a line z + d = Y.Lo or
// Y.Hi are rounded.
func regionVertices(z, d, y Interval) [][2]float64 {
	var cand [][2]float64
	zs, ds := []float64{z.Lo, z.Hi, 0}, []float64{d.Lo, d.Hi}
	ys := []float64{y.Lo, y.Hi, 0}
	for _, a := range zs {
		for _, b := range ds {
			cand = append(cand, [2]float64{a, b})
		}
		for _, s := range ys {
			cand = append(cand, [2]float64{a, s - a})
		}
	}
	for _, b := range ds {
		for _, s := range ys {
			cand = append(cand, [2]float64{s - b, b})
		}
	}
	tol := 4 * outward.Unit * (z.Mag() + d.Mag() + y.Mag())
	in := func(v float64, x Interval) bool { return v >= x.Lo-tol && v <= x.Hi+tol }
	var pts [][2]float64
	for _, p := range cand {
		if !in(p[0], z) || !in(p[1], d) || !in(p[0]+p[1], y) {
			continue
		}
		dup := false
		for _, q := range pts {
			dup = dup || q == p
		}
		if !dup {
			pts = append(pts, p)
		}
	}
	return pts
}

// bestEnvelope returns the plane through three of pts below sign f at
// every point (to a relative 1e-9) and highest at (ca, cd), in plain
// float64, scaled back by sign (above f when sign is -1).
func bestEnvelope(pts [][2]float64, f []float64, ca, cd, sign float64) (plane, bool) {
	var best plane
	bestV, found := math.Inf(-1), false
	n := len(pts)
	scale := 0.0
	for i := range n {
		scale = max(scale, math.Abs(f[i]), math.Abs(pts[i][0]), math.Abs(pts[i][1]))
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			for k := j + 1; k < n; k++ {
				p, ok := planeThrough(pts[i], pts[j], pts[k], sign*f[i], sign*f[j], sign*f[k])
				if !ok {
					continue
				}
				v := p.at(ca, cd)
				if !(v > bestV) {
					continue
				}
				below := true
				for m := range n {
					if p.at(pts[m][0], pts[m][1]) > sign*f[m]+1e-9*scale {
						below = false
						break
					}
				}
				if below {
					best, bestV, found = p, v, true
				}
			}
		}
	}
	if !found {
		return plane{}, false
	}
	return plane{sign * best.A, sign * best.B, sign * best.C}, true
}

// planeThrough returns the plane A z + B d + C through (p, fp), (q, fq)
// and (r, fr), unless the points are (nearly) on a line.
func planeThrough(p, q, r [2]float64, fp, fq, fr float64) (plane, bool) {
	a1, b1, c1 := q[0]-p[0], q[1]-p[1], fq-fp
	a2, b2, c2 := r[0]-p[0], r[1]-p[1], fr-fp
	det := a1*b2 - a2*b1
	if math.Abs(det) <= 1e-12*(math.Abs(a1*b2)+math.Abs(a2*b1)) || det == 0 {
		return plane{}, false
	}
	A := (c1*b2 - c2*b1) / det
	B := (a1*c2 - a2*c1) / det
	return plane{A, B, fp - A*p[0] - B*p[1]}, true
}

// envelopeMargin returns p with its offset moved so that it is below
// sign f on the whole region (above when sign is -1; see the comment at
// the top of the file).
func envelopeMargin(p plane, pts [][2]float64, f []float64, sign, slope, mz, md, delta float64) plane {
	excess := 0.0
	for m, q := range pts {
		excess = max(excess, sign*(p.at(q[0], q[1])-f[m]))
	}
	lip := 3*slope + math.Abs(p.A) + math.Abs(p.B)
	size := math.Abs(p.A)*mz + math.Abs(p.B)*md + math.Abs(p.C) + slope*(2*mz+md)
	margin := outward.AddUp(outward.AddUp(excess, lip*delta*(1+1e-6)), 16*outward.Unit*size+outward.Tiny)
	if sign > 0 {
		p.C = outward.SubDown(p.C, margin)
	} else {
		p.C = outward.AddUp(p.C, margin)
	}
	return p
}
