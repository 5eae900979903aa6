package bounds

import "github.com/nnbound/nnbound/internal/outward"

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
