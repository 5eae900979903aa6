package bounds

import (
	"context"
	"fmt"
	"math"

	"github.com/nnbound/nnbound/internal/outward"
)

// Norm2 returns an upper bound of ||f2(x2) - f1(x1)||_2 over the input
// pairs pb was computed for: the norm of the output enclosures, and for a
// split box the largest over the pieces of the norms of theirs (each
// intersected with the whole box's), which is never larger. The outputs
// of a pair often differ most on different pieces, where the norm of the
// hull adds up the worst of each.
func (pb *PairBounds) Norm2() float64 {
	if pb.pieces == nil {
		return norm2Up(pb.Output)
	}
	worst := 0.0
	for _, p := range pb.pieces {
		out := append([]Interval(nil), p.Output...)
		intersectAll(out, pb.whole.Output)
		worst = max(worst, norm2Up(out))
	}
	return min(worst, norm2Up(pb.Output))
}

// norm2Up returns an upper bound of the 2-norm of any vector in the box
// out.
func norm2Up(out []Interval) float64 {
	s := 0.0
	for _, o := range out {
		m := o.Mag()
		s = outward.AddUp(s, outward.MulUp(m, m))
	}
	return outward.SqrtUp(s)
}

// Norm2Planar returns an upper bound of ||f2(x2) - f1(x1)||_2 over the
// input pairs pb was computed for that takes the outputs two at a time:
// the pair d = (d_j, d_j+1) of output differences lies in the polygon cut
// by margins (Margin; with MethodOptimised its slopes are optimised only
// for the two directions whose cone gives the largest norm, planarRounds
// times) in k directions of its plane,
//
//	lo_t <= c_t^T d <= hi_t,   c_t = (cos(pi t / k), sin(pi t / k)),  t = 0, ..., k-1,
//
// and ||d||_2 is bounded cone by cone (polygonNorm): between two
// neighbouring normals n_a, n_b of these 2k half-planes (pi / k apart) a
// unit vector is u = alpha n_a + beta n_b with alpha, beta >= 0, so u^T d
// <= alpha h_a + beta h_b, whose largest value over the cone is the norm
// of the polygon's vertex there when that lies in the cone. An output
// left over counts by its enclosure. Where the worst cases of the two
// outputs lie in different places, or share rounding noise of opposite
// signs (the quantisers of an int8 copy), this is tighter than the norm
// of the per-output enclosures; it is never above max_t |c_t^T d| /
// cos(pi / 2k). For a split box it is the largest over the pieces; never
// more than Norm2. k must be at least 2.
func (pb *PairBounds) Norm2Planar(k int) (float64, error) {
	if k < 2 {
		return 0, fmt.Errorf("bounds: Norm2Planar: %d directions, want at least 2: %w", k, ErrOptions)
	}
	norm := pb.Norm2()
	if len(pb.Output) < 2 {
		return norm, nil
	}
	if pb.pieces == nil {
		v, err := pb.planar(k)
		return min(v, norm), err
	}
	worst := 0.0
	for _, p := range pb.pieces {
		v, err := p.planar(k)
		if err != nil {
			return 0, err
		}
		worst = max(worst, v)
	}
	return min(worst, norm), nil
}

// planarRounds is the number of times planar re-computes, with slopes
// optimised for them, the margins of the two directions whose cone gives
// the largest norm (MethodOptimised only): a few optimised margins where
// they matter, at a fraction of the cost of optimising all k.
const planarRounds = 2

// planar is Norm2Planar on a box that is not split. The margins of all
// the planes are bounded together, in one pass through the networks for
// each round (Margins: the same intervals as one at a time).
func (pb *PairBounds) planar(k int) (float64, error) {
	n := len(pb.Output)
	planes := n / 2                // plane p holds the outputs 2p, 2p+1
	h := make([][]float64, planes) // the half-planes' bounds, by the angle of their normals
	for p := range h {
		h[p] = make([]float64, 2*k)
		for t := range h[p] {
			h[p][t] = math.Inf(1)
		}
	}
	// margins bounds the directions ts[p] of every plane p.
	margins := func(ts [][]int, optimise bool) error {
		var cs [][]float64
		for p, pt := range ts {
			for _, t := range pt {
				th := math.Pi * float64(t) / float64(k)
				c := make([]float64, n)
				c[2*p], c[2*p+1] = math.Cos(th), math.Sin(th)
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			return nil
		}
		ms, err := pb.margins(context.Background(), cs, optimise)
		if err != nil {
			return err
		}
		for p, pt := range ts {
			for _, t := range pt {
				h[p][t], h[p][k+t] = min(h[p][t], ms[0].Hi), min(h[p][k+t], -ms[0].Lo)
				ms = ms[1:]
			}
		}
		return nil
	}
	ts := make([][]int, planes)
	for p := range ts {
		for t := range k {
			ts[p] = append(ts[p], t)
		}
	}
	if err := margins(ts, false); err != nil {
		return 0, err
	}
	r, a := make([]float64, planes), make([]int, planes)
	for p := range planes {
		r[p], a[p] = polygonNorm(h[p])
	}
	optimised := make([][]bool, planes)
	for p := range optimised {
		optimised[p] = make([]bool, k)
	}
	for range planarRounds {
		if pp := pb.prop; pp == nil || pp.opt == nil {
			break
		}
		more := false
		for p := range planes {
			ts[p] = ts[p][:0]
			for _, t := range []int{a[p] % k, (a[p] + 1) % k} {
				if !optimised[p][t] {
					optimised[p][t] = true
					ts[p] = append(ts[p], t)
				}
			}
			more = more || len(ts[p]) > 0
		}
		if !more {
			break
		}
		if err := margins(ts, true); err != nil {
			return 0, err
		}
		for p := range planes {
			if len(ts[p]) > 0 {
				r[p], a[p] = polygonNorm(h[p])
			}
		}
	}
	return planesNorm(pb.Output, r), nil
}

// planesNorm returns an upper bound of ||d||_2 for d in the box out whose
// planes of two outputs (2p, 2p+1) have norms at most r[p] (an output
// left over counts by its enclosure).
func planesNorm(out []Interval, r []float64) float64 {
	s := 0.0
	for p, rp := range r {
		v := min(rp, norm2Up(out[2*p:2*p+2]))
		s = outward.AddUp(s, outward.MulUp(v, v))
	}
	if n := len(out); n%2 == 1 {
		m := out[n-1].Mag()
		s = outward.AddUp(s, outward.MulUp(m, m))
	}
	return outward.SqrtUp(s)
}

// polygonNorm returns an upper bound of ||d||_2 over the d in the plane
// with n_t^T d <= h[t] for the m = len(h) unit normals n_t at angles 2 pi
// t / m (m >= 4): per cone between n_a and n_b = n_{a+1}, delta = 2 pi / m
// apart, the largest over phi in [0, delta] of
//
//	(h_a sin(delta - phi) + h_b sin(phi)) / sin(delta) = A cos(phi) + B sin(phi),
//	A = h_a,   B = (h_b - h_a cos(delta)) / sin(delta),
//
// which is sqrt(A^2 + B^2) when atan2(B, A) lies in [0, delta] and
// max(h_a, h_b) otherwise. The result is widened by 2^-30 (|h_a| + |h_b|)
// / sin(delta), far above the rounding of this computation and of the
// directions' angles and norms (a few ulps each). worst is the index a of
// the cone that gives the bound.
func polygonNorm(h []float64) (bound float64, worst int) {
	m := len(h)
	delta := 2 * math.Pi / float64(m)
	sd, cd := math.Sin(delta), math.Cos(delta)
	for a := range m {
		ha, hb := h[a], h[(a+1)%m]
		if math.IsNaN(ha) || math.IsNaN(hb) {
			return math.Inf(1), a
		}
		A, B := ha, (hb-ha*cd)/sd
		v := max(ha, hb)
		if phi := math.Atan2(B, A); phi >= 0 && phi <= delta {
			v = math.Hypot(A, B)
		}
		if v = outward.UpBy(v, 0x1p-30*(math.Abs(ha)+math.Abs(hb))/sd); v > bound || a == 0 {
			bound, worst = v, a
		}
	}
	return max(bound, 0), worst
}
