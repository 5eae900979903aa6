package bounds

import (
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"gonum.org/v1/gonum/mat"
)

// The difference graph of two graphs of the same structure.
//
// When g2 has g1's nodes with other parameters (a perturbed, float16 or
// int8-weight copy), GraphPair bounds the pair through the values z = z1
// of g1 and d = z2 - z1 of every node, NeuroDiff's variables:
//
//	affine:     d' = M2 d + (M2 - M1) z + (B2 - B1)
//	Add/Concat: d' = d_a ± d_b, or the d's joined
//	nonlinear:  d' = phi2(z + d) - phi1(z)      (pairAct, pairQuant, pairMax)
//
// with M2 - M1 and B2 - B1 computed exactly (a copy whose weights are not
// within a factor 2 of the original's, where a float64 difference could
// round, falls back to the combined graph). The nonlinear differences are
// relaxed by planes in (z, d) (diffrelax.go: the mean value theorem when
// phi1 = phi2, the difference of the two networks' lines otherwise), so a
// neuron unstable in both networks costs the spread of the slope times d,
// not the two gaps of its relaxations. The graph's values are z and d of
// every node; bound propagation treats the pair nodes below as nonlinear
// nodes of two inputs (z, d).

// pairAct is phi2(z + d) - phi1(z), value by value.
type pairAct struct{ act1, act2 nn.Activation }

// Eval sets dst_i = act2(z_i + d_i) - act1(z_i).
func (p pairAct) Eval(dst []float64, in [][]float64) {
	for i, z := range in[0] {
		dst[i] = p.act2.Apply(z+in[1][i]) - p.act1.Apply(z)
	}
}

// Describe names the pair.
func (p pairAct) Describe() string { return "diff " + p.act1.Describe() + " " + p.act2.Describe() }

// pairQuant is q2(z + d) - q1(z), value by value; a nil quantiser is the
// identity (a quantiser of one graph only, graphalign.go).
type pairQuant struct{ q1, q2 *nn.Quantiser }

// Eval sets dst_i = q2(z_i + d_i) - q1(z_i).
func (p pairQuant) Eval(dst []float64, in [][]float64) {
	for i, z := range in[0] {
		dst[i] = applyOr(p.q2, i, z+in[1][i]) - applyOr(p.q1, i, z)
	}
}

// Describe names the pair.
func (p pairQuant) Describe() string { return "diff quantise" }

// applyOr returns q(v) for value i, or v when q is nil.
func applyOr(q *nn.Quantiser, i int, v float64) float64 {
	if q == nil {
		return v
	}
	return q.Apply(i, v)
}

// pairMax is max(z + d) - max(z) over each window of a max pool.
type pairMax struct{ wins [][]int }

// Eval sets dst_o to the difference of the window maxima.
func (p pairMax) Eval(dst []float64, in [][]float64) {
	for o, w := range p.wins {
		m1, m2 := math.Inf(-1), math.Inf(-1)
		for _, j := range w {
			m1, m2 = max(m1, in[0][j]), max(m2, in[0][j]+in[1][j])
		}
		dst[o] = m2 - m1
	}
}

// Describe names the pair.
func (p pairMax) Describe() string { return "diff maxpool" }

// pairImage returns an enclosure of a pair node's output for its inputs
// in the boxes in: z, d and, for pairAct and pairQuant, optionally the
// second network's value y = z + d (see sums).
func pairImage(op nn.Op, in [][]Interval) []Interval {
	z, d := in[0], in[1]
	if o, ok := op.(pairMax); ok {
		z2 := addAll(z, d)
		m1, m2 := maxPoolImage(o.wins, z), maxPoolImage(o.wins, z2)
		out := make([]Interval, len(o.wins))
		for k, w := range o.wins {
			lip := Interval{math.Inf(1), math.Inf(-1)} // max is 1-Lipschitz in the max-norm
			for _, j := range w {
				lip = Interval{min(lip.Lo, d[j].Lo), max(lip.Hi, d[j].Hi)}
			}
			out[k] = lip.Intersect(m2[k].Sub(m1[k]))
		}
		return out
	}
	out := make([]Interval, len(z))
	y := sums(in)
	switch o := op.(type) {
	case pairAct:
		for i := range z {
			out[i] = pairActImage(o, z[i], d[i], y[i])
		}
	case pairQuant:
		for i := range z {
			out[i] = pairQuantImage(o, i, z[i], d[i], y[i])
		}
	case pairUnary:
		for i := range z {
			out[i] = unaryDiffImage(o.u, z[i], d[i])
		}
	}
	return out
}

// sums returns enclosures of the second network's values z + d of a pair
// node's inputs in: z_i + d_i, intersected with the bounds of a third
// input y = z + d when the node has one (a value of the difference graph
// that back-substitution bounds as a whole, tighter than the sum of the
// two bounds).
func sums(in [][]Interval) []Interval {
	y := addAll(in[0], in[1])
	if len(in) > 2 {
		for i := range y {
			y[i] = y[i].Intersect(in[2][i])
		}
	}
	return y
}

// pairActImage returns an enclosure of act2(s + t) - act1(s) for s in z,
// t in d, s + t in z2.
func pairActImage(p pairAct, z, d, z2 Interval) Interval {
	out := actImage(p.act2, z2).Sub(actImage(p.act1, z))
	if a, ok := sameAct(p.act1, p.act2, z, z2); ok {
		out = out.Intersect(diffImage(a, z, z2, d))
	}
	return out
}

// addAll returns the enclosures of a_i + b_i.
func addAll(a, b []Interval) []Interval {
	out := make([]Interval, len(a))
	for i := range a {
		out[i] = a[i].Add(b[i])
	}
	return out
}

// pairRelax returns the relaxation of a pair node by planes in (z, d):
// line A and C with the coefficient B on d at the same index (a third
// input y = z + d only bounds z + d: its coefficients are zero).
func pairRelax(op nn.Op, in [][]Interval) *graphRelax {
	post := pairImage(op, in)
	z, d, y := in[0], in[1], sums(in)
	n := len(post)
	rel := &graphRelax{low: make([]line, n), up: make([]line, n), lowB: make([]float64, n), upB: make([]float64, n), fanIn: 1}
	set := func(i int, lo, up plane) {
		rel.low[i], rel.lowB[i] = line{lo.A, lo.C}, lo.B
		rel.up[i], rel.upB[i] = line{up.A, up.C}, up.B
	}
	switch o := op.(type) {
	case pairAct:
		for i := range n {
			z2 := y[i]
			l1, u1 := relax(o.act1, z[i].Lo, z[i].Hi)
			l2, u2 := relax(o.act2, z2.Lo, z2.Hi)
			lo, up := diffPlanes(o.act1, o.act2, z[i], z2, d[i], post[i], l1, u1, l2, u2)
			if z[i].Straddles() || z2.Straddles() {
				ca, cd := z[i].Lo/2+z[i].Hi/2, d[i].Lo/2+d[i].Hi/2
				if el, eu, ok := envelopePlanes(o.act1, o.act2, z[i], d[i], z2, ca, cd); ok {
					if el.at(ca, cd) > lo.at(ca, cd) {
						lo = el
					}
					if eu.at(ca, cd) < up.at(ca, cd) {
						up = eu
					}
				}
			}
			set(i, lo, up)
		}
	case pairQuant:
		for i := range n {
			l1, u1 := quantOrIdentityLines(o.q1, i, z[i])
			l2, u2 := quantOrIdentityLines(o.q2, i, y[i])
			lo, up := separatePlanes(z[i].Mag(), l1, u1, l2, u2)
			set(i, betterPlane(lo, post[i].Lo, z[i], d[i], false), betterPlane(up, post[i].Hi, z[i], d[i], true))
		}
	case pairUnary:
		for i := range n {
			lo, up := unaryDiffPlanes(o.u, z[i], d[i])
			set(i, betterPlane(lo, post[i].Lo, z[i], d[i], false), betterPlane(up, post[i].Hi, z[i], d[i], true))
		}
	case pairMax:
		rel.lowAt, rel.upAt = make([]int32, n), make([]int32, n)
		z2 := addAll(z, d)
		reads := make([]int, len(z))
		for k, w := range o.wins {
			set(k, plane{0, 0, post[k].Lo}, plane{0, 0, post[k].Hi})
			if j, ok := dominant(w, z); ok && dominatesIn(j, w, z2) {
				set(k, plane{0, 1, 0}, plane{0, 1, 0}) // d' = d_j exactly
				rel.lowAt[k], rel.upAt[k] = int32(j), int32(j)
				reads[j] += 2
			}
		}
		rel.fanIn = max(1, maxInt(reads)) // windows may share their dominant input
	}
	return rel
}

// betterPlane returns p or the constant c, whichever is better (lower for
// an upper bound, higher for a lower one) at the centre of z x d.
func betterPlane(p plane, c float64, z, d Interval, upper bool) plane {
	v := p.at(z.Lo/2+z.Hi/2, d.Lo/2+d.Hi/2)
	if (upper && c < v) || (!upper && c > v) || math.IsNaN(v) {
		return plane{0, 0, c}
	}
	return p
}

// dominant returns the input of window w whose lower bound is at least
// every other's upper bound in x, if there is one.
func dominant(w []int, x []Interval) (int, bool) {
	j := w[0]
	for _, i := range w {
		if x[i].Lo > x[j].Lo {
			j = i
		}
	}
	return j, dominatesIn(j, w, x)
}

// dominatesIn reports whether x_j >= x_i for every i of window w.
func dominatesIn(j int, w []int, x []Interval) bool {
	for _, i := range w {
		if i != j && x[i].Hi > x[j].Lo {
			return false
		}
	}
	return true
}

// isPair reports whether op is a pair node.
func isPair(op nn.Op) bool {
	switch op.(type) {
	case pairAct, pairQuant, pairMax, pairUnary:
		return true
	}
	return false
}

// pairNeedsTight reports whether the relaxation of the pair node op
// depends on the bounds z and d of value i beyond their sign patterns.
func pairNeedsTight(op nn.Op, z, d Interval) bool {
	if p, ok := op.(pairAct); ok {
		return needsTight(nn.Act{Act: p.act1}, z) || needsTight(nn.Act{Act: p.act2}, z.Add(d))
	}
	return true
}

// exactDiff returns b - a entry by entry (nil entries read as zeros),
// whether every difference is zero, and whether every one is exact.
func exactDiff(a, b []float64, n int) (d []float64, zero, ok bool) {
	d, zero = make([]float64, n), true
	at := func(v []float64, i int) float64 {
		if v == nil {
			return 0
		}
		return v[i]
	}
	for i := range d {
		s, e := outward.TwoSum(at(b, i), -at(a, i))
		if e != 0 || math.IsInf(s, 0) || math.IsNaN(s) {
			return nil, false, false
		}
		d[i], zero = s, zero && s == 0
	}
	return d, zero, true
}

// linearDiff returns M2 - M1 for maps of the same structure, whether it is
// zero, and whether it was computed exactly.
func linearDiff(m1, m2 nn.Linear) (nn.Linear, bool, error) {
	fail := fmt.Errorf("bounds: maps %T and %T differ in structure", m1, m2)
	switch a := m1.(type) {
	case *nn.Conv2D:
		b, ok := m2.(*nn.Conv2D)
		if !ok || !a.SameGeometry(b) {
			return nil, false, fail
		}
		k, zero, ok := exactDiff(a.Kernel, b.Kernel, len(a.Kernel))
		return a.WithKernel(k), zero, okErr(ok, fail)
	case nn.DenseMap:
		b, ok := m2.(nn.DenseMap)
		if !ok || a.In() != b.In() || a.Out() != b.Out() {
			return nil, false, fail
		}
		w, zero, ok := exactDiff(denseData(a), denseData(b), a.In()*a.Out())
		if !ok {
			return nil, false, fail
		}
		return nn.DenseMap{W: mat.NewDense(a.Out(), a.In(), w)}, zero, nil
	case *nn.RowMap:
		b, ok := m2.(*nn.RowMap)
		if !ok || a.Rows != b.Rows || a.In() != b.In() || a.Out() != b.Out() {
			return nil, false, fail
		}
		r, c := a.W.Dims()
		w, zero, ok := exactDiff(denseData(nn.DenseMap{W: a.W}), denseData(nn.DenseMap{W: b.W}), r*c)
		if !ok {
			return nil, false, fail
		}
		return &nn.RowMap{W: mat.NewDense(r, c, w), Rows: a.Rows}, zero, nil
	case *nn.Scale:
		b, ok := m2.(*nn.Scale)
		if !ok || len(a.S) != len(b.S) {
			return nil, false, fail
		}
		s, zero, ok := exactDiff(a.S, b.S, len(a.S))
		return &nn.Scale{S: s}, zero, okErr(ok, fail)
	case *nn.Sparse:
		b, ok := m2.(*nn.Sparse)
		if !ok || a.N != b.N || !slices.Equal(a.Start, b.Start) || !slices.Equal(a.Col, b.Col) {
			return nil, false, fail
		}
		w, zero, ok := exactDiff(a.W, b.W, len(a.W))
		return &nn.Sparse{N: a.N, Start: a.Start, Col: a.Col, W: w}, zero, okErr(ok, fail)
	}
	if sameMap(m1, m2) {
		return nil, true, nil
	}
	return nil, false, fail
}

// okErr returns err unless ok.
func okErr(ok bool, err error) error {
	if ok {
		return nil
	}
	return err
}

// denseData returns the entries of m row by row.
func denseData(m nn.DenseMap) []float64 {
	raw := m.W.RawMatrix()
	out := make([]float64, 0, raw.Rows*raw.Cols)
	for i := range raw.Rows {
		out = append(out, raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols]...)
	}
	return out
}

// sameMap reports whether two parameter-free maps (selections, average
// pools) are the same.
func sameMap(m1, m2 nn.Linear) bool {
	switch a := m1.(type) {
	case *nn.Gather:
		b, ok := m2.(*nn.Gather)
		return ok && a.N == b.N && slices.Equal(a.Index, b.Index)
	case *nn.AvgPool2D:
		b, ok := m2.(*nn.AvgPool2D)
		return ok && *a == *b
	}
	return false
}
