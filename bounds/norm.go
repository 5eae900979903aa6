package bounds

import (
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
// the norm of a pair (d_j, d_j+1) of output differences is bounded by
// margins (Margin, without optimising slopes for them) in k directions of
// its plane,
//
//	||(d_j, d_j+1)||_2 <= max_t |c_t^T (d_j, d_j+1)| / cos(pi / 2k),
//	c_t = (cos(pi t / k), sin(pi t / k)),  t = 0, ..., k-1,
//
// since every unit vector lies within pi / 2k of some +-c_t; an output
// left over counts by its enclosure. Where the worst cases of the two
// outputs lie in different places, or share rounding noise of opposite
// signs (the quantisers of an int8 copy), this is tighter than the norm
// of the per-output enclosures. For a split box it is the largest over
// the pieces; never more than Norm2. k must be at least 2.
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

// planar is Norm2Planar on a box that is not split.
func (pb *PairBounds) planar(k int) (float64, error) {
	n := len(pb.Output)
	// 1 / cos(pi / 2k), widened for the rounding of the directions (their
	// norms and angles are off by a few ulps).
	inv := (1 / math.Cos(math.Pi/float64(2*k))) * (1 + 0x1p-30)
	s := 0.0
	for j := 0; j < n; j += 2 {
		if j+1 == n {
			m := pb.Output[j].Mag()
			s = outward.AddUp(s, outward.MulUp(m, m))
			break
		}
		box := norm2Up(pb.Output[j : j+2])
		r := 0.0
		for t := range k {
			th := math.Pi * float64(t) / float64(k)
			c := make([]float64, n)
			c[j], c[j+1] = math.Cos(th), math.Sin(th)
			m, err := pb.margin(c, false)
			if err != nil {
				return 0, err
			}
			r = max(r, m.Mag())
		}
		r = min(outward.MulUp(r, inv), box)
		s = outward.AddUp(s, outward.MulUp(r, r))
	}
	return outward.SqrtUp(s), nil
}
