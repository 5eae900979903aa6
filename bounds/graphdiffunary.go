package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Differences of the transformer pieces in the difference graph
// (graphdiff.go). A product of two values, with z, d the first network's
// value and the difference at each input,
//
//	(z_a + d_a)(z_b + d_b) - z_a z_b = z_a d_b + d_a (z_b + d_b),
//
// is two nn.Mul nodes and Adds (relaxed as products, graphunary.go). A
// smooth function's difference f(z + d) - f(z) = f'(xi) d, xi between z
// and z + d (the mean value theorem), is the pair node pairUnary: with
// f' in [m, M] over the hull H of z and z + d, it lies between
// min(m d, M d) and max(m d, M d), and its planes are the chords of these
// over d (offsets taken at the ends, where the convex and concave
// remainders are extreme, rounded outward), or on each side the
// second-order plane of graphdifftaylor.go where it is lower (higher) at
// the box's centre; its image is that product intersected with the
// difference of f's images.

// pairUnary is f(z + d) - f(z), value by value.
type pairUnary struct{ u nn.Unary }

// Eval sets dst_i = f(z_i + d_i) - f(z_i).
func (p pairUnary) Eval(dst []float64, in [][]float64) {
	for i, z := range in[0] {
		dst[i] = p.u.Apply(z+in[1][i]) - p.u.Apply(z)
	}
}

// Describe names the pair.
func (p pairUnary) Describe() string { return "diff " + p.u.Describe() }

// slopeRange returns [m, M] enclosing f' over the hull of z and z + d, or
// ok false outside f's domain.
func slopeRange(u nn.Unary, z, d Interval) (m, mm float64, ok bool) {
	z2 := z.Add(d)
	h := Interval{min(z.Lo, z2.Lo), max(z.Hi, z2.Hi)}
	if !unaryDomain(u, h) {
		return 0, 0, false
	}
	if u.F == nn.Sqrt && h.Lo == 0 {
		return 0, 0, false // an unbounded slope
	}
	lo, hi := unaryDeriv(u, h.Lo, h.Hi)
	return outward.LibDown(lo), outward.LibUp(hi), lo == lo && hi == hi
}

// unaryDiffImage returns an enclosure of f(s + t) - f(s), s in z, t in d.
func unaryDiffImage(u nn.Unary, z, d Interval) Interval {
	out := unaryImage(u, z.Add(d)).Sub(unaryImage(u, z))
	if m, mm, ok := slopeRange(u, z, d); ok {
		out = out.Intersect(Interval{m, mm}.Scale(d))
	}
	return out
}

// unaryDiffPlanes returns planes in (z, d) below and above
// f(z + d) - f(z): on each side the better at the centre of the mean value
// and the second-order planes (see the top of the file).
func unaryDiffPlanes(u nn.Unary, z, d Interval) (lower, upper plane) {
	lower, upper = meanValuePlanes(u, z, d)
	if tl, tu, ok := taylorDiffPlanes(u, z, d); ok {
		zc, dc := z.Lo/2+z.Hi/2, d.Lo/2+d.Hi/2
		if tl.at(zc, dc) > lower.at(zc, dc) || math.IsNaN(lower.at(zc, dc)) {
			lower = tl
		}
		if tu.at(zc, dc) < upper.at(zc, dc) || math.IsNaN(upper.at(zc, dc)) {
			upper = tu
		}
	}
	return lower, upper
}

// meanValuePlanes returns the chords of min(m d, M d) and max(m d, M d)
// over d (see the top of the file).
func meanValuePlanes(u nn.Unary, z, d Interval) (lower, upper plane) {
	m, mm, ok := slopeRange(u, z, d)
	if !ok || !finiteInterval(d) {
		return plane{0, 0, math.Inf(-1)}, plane{0, 0, math.Inf(1)}
	}
	hi := func(t float64) float64 { return max(outward.MulUp(m, t), outward.MulUp(mm, t)) }
	lo := func(t float64) float64 { return min(outward.MulDown(m, t), outward.MulDown(mm, t)) }
	if !(d.Hi > d.Lo) {
		return plane{0, 0, lo(d.Lo)}, plane{0, 0, hi(d.Hi)}
	}
	chord := func(f func(float64) float64, up bool) plane {
		b := (f(d.Hi) - f(d.Lo)) / (d.Hi - d.Lo)
		if b-b != 0 {
			b = 0
		}
		if up {
			return plane{0, b, max(outward.SubUp(f(d.Lo), outward.MulDown(b, d.Lo)), outward.SubUp(f(d.Hi), outward.MulDown(b, d.Hi)))}
		}
		return plane{0, b, min(outward.SubDown(f(d.Lo), outward.MulUp(b, d.Lo)), outward.SubDown(f(d.Hi), outward.MulUp(b, d.Hi)))}
	}
	return chord(lo, false), chord(hi, true)
}

// mulDiff appends the difference of a product to the difference graph:
// z_a d_b + d_a (z_b + d_b); z and d are the values of the two inputs.
func (pg *pairGraph) mulDiff(z, d []int, shape []int) int {
	z2b := pg.add(nn.Node{Op: nn.Add{}, Inputs: []int{z[1], d[1]}, Shape: shape})
	p := pg.add(nn.Node{Op: nn.Mul{}, Inputs: []int{z[0], d[1]}, Shape: shape})
	q := pg.add(nn.Node{Op: nn.Mul{}, Inputs: []int{d[0], z2b}, Shape: shape})
	return pg.add(nn.Node{Op: nn.Add{}, Inputs: []int{p, q}, Shape: shape})
}

// reciprocalDiff appends the difference of a reciprocal to the difference
// graph in relative form: with r = 1/z (the value r of g1) and w = r d,
//
//	1/(z + d) - 1/z = r (1/(1 + w) - 1),
//
// products (graphunary.go) and a reciprocal of 1 + w. Where z varies much
// more across the box than d/z (a softmax's sum of exponentials), w is
// nearly constant and the products' planes are tight, while those of the
// pair node in (z, d) (pairUnary) carry the reciprocal's curvature over
// the width of z.
func (pg *pairGraph) reciprocalDiff(r, d int, shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	ones, minus := make([]float64, n), make([]float64, n)
	for i := range ones {
		ones[i], minus[i] = 1, -1
	}
	w := pg.add(nn.Node{Op: nn.Mul{}, Inputs: []int{d, r}, Shape: shape})
	w1 := pg.add(nn.Node{Op: &nn.Affine{M: &nn.Scale{S: ones}, B: ones}, Inputs: []int{w}, Shape: shape})
	q := pg.add(nn.Node{Op: nn.Unary{F: nn.Reciprocal}, Inputs: []int{w1}, Shape: shape})
	h := pg.add(nn.Node{Op: &nn.Affine{M: &nn.Scale{S: ones}, B: minus}, Inputs: []int{q}, Shape: shape})
	return pg.add(nn.Node{Op: nn.Mul{}, Inputs: []int{r, h}, Shape: shape})
}
