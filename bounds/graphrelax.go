package bounds

import (
	"math"
	"sync"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Interval images and linear relaxations of the operations of a graph.
//
// Every nonlinear node (nn.Act, *nn.Quantise, *nn.MaxPool, nn.Unary and
// nn.Mul: graphunary.go) is relaxed, per
// output value i, by two lines, each in one value of the node's input:
//
//	low[i].A x[lowAt[i]] + low[i].C  <=  y_i  <=  up[i].A x[upAt[i]] + up[i].C
//
// for every input x in the box of the node's input bounds. For an
// activation both read x_i and are relax's lines. A quantiser
//
//	q(v) = clamp(v + e, a, b),   |e| <= r
//
// (nn.Quantiser) lies between ht(v - r) and ht(v + r), ht the hard-tanh
// onto [a, b] (ends rounded outward), so its lines are hard-tanh lines
// shifted by r. A max pool output lies above its window's input with the
// largest lower bound, and below the chord of max(x_k, U) over [l_k, u_k],
// x_k the input with the largest upper bound and U the largest upper bound
// of the others (exact, y = x_k, when l_k >= U).

// graphRelax is the relaxation of a nonlinear node (see above); lowAt and
// upAt nil mean the line of output i reads input i. A pair node
// (graphdiff.go) reads a second input at the same index, with the
// coefficients lowB and upB (nil for other nodes).
type graphRelax struct {
	low, up     []line
	lowB, upB   []float64
	lowAt, upAt []int32
	fanIn       int // the most lines reading one input value, at least 1

	pack     sync.Once
	packedAt []float64 // see packed
}

// packed returns, for a relaxation whose lines read the input of their
// own index, the lines of entry i at 6i: low A, C and B (0 without a
// second input), then up A, C and B. It is computed once.
func (rel *graphRelax) packed() []float64 {
	rel.pack.Do(func() {
		pk := make([]float64, 6*len(rel.low))
		for i, lo := range rel.low {
			up := rel.up[i]
			pk[6*i], pk[6*i+1], pk[6*i+3], pk[6*i+4] = lo.A, lo.C, up.A, up.C
			if rel.lowB != nil {
				pk[6*i+2], pk[6*i+5] = rel.lowB[i], rel.upB[i]
			}
		}
		rel.packedAt = pk
	})
	return rel.packedAt
}

// at returns the input value line i reads (idx nil: i).
func at(idx []int32, i int) int {
	if idx == nil {
		return i
	}
	return int(idx[i])
}

// quantNoise returns the rounding radius r of value i of q and its range
// [a, b] rounded inward (dn) and outward (up): the exact real q(v) and its
// float64 evaluation (nn.Quantiser.Apply) both lie between
// clamp(v - r, dn.Lo, dn.Hi) and clamp(v + r, up.Lo, up.Hi). r is s/2,
// widened by 2^-29 s for the rounding of v / s near a tie and by
// 4 u (max(|a|, |b|) + s) for that of v / s and of the dequantisation
// (whose magnitudes stay below max(|a|, |b|) + s unless clamped).
func quantNoise(q *nn.Quantiser, i int) (r float64, dn, up Interval) {
	s, z := q.At(i)
	lo, hi := float64(q.Lo-z), float64(q.Hi-z)
	dn = Interval{outward.MulDown(lo, s), outward.MulDown(hi, s)}
	up = Interval{outward.MulUp(lo, s), outward.MulUp(hi, s)}
	big := max(math.Abs(dn.Lo), math.Abs(up.Hi)) + s
	r = outward.AddUp(outward.MulUp(s, 0.5+0x1p-29), outward.MulUp(4*outward.Unit, big))
	return r, dn, up
}

// clampTo returns v clamped to [x.Lo, x.Hi].
func clampTo(v float64, x Interval) float64 { return min(max(v, x.Lo), x.Hi) }

// quantImage returns an enclosure of q(v) for value i over v in x: its
// exact image (quantRange) within the noise's.
func quantImage(q *nn.Quantiser, i int, x Interval) Interval {
	r, dn, up := quantNoise(q, i)
	out := Interval{clampTo(outward.SubDown(x.Lo, r), dn), clampTo(outward.AddUp(x.Hi, r), up)}
	if img, _, ok := quantRange(q, i, x); ok {
		out = out.Intersect(img)
	}
	return out
}

// quantLines returns lines below and above q (value i) on [l, u]: the
// hard-tanh lines of dn on [l - r, u - r] and of up on [l + r, u + r],
// shifted by r; or the ends of q's exact image (quantRange) where they are
// closer together at the middle of x: inside one step, where q is that
// constant, and across one jump, where both pairs are s apart but the
// constants are exact at the ends. (The staircase's lines of other
// slopes, as its secant, are never closer than one of these: a line
// crossing a jump leaves s between them.)
func quantLines(q *nn.Quantiser, i int, x Interval) (lower, upper line) {
	img, constant, ok := quantRange(q, i, x)
	if ok && constant {
		return line{0, img.Lo}, line{0, img.Hi}
	}
	r, dn, up := quantNoise(q, i)
	lower, _ = relax(nn.Activation{Kind: nn.HardTanh, Lo: dn.Lo, Hi: dn.Hi}, outward.SubDown(x.Lo, r), outward.SubUp(x.Hi, r))
	_, upper = relax(nn.Activation{Kind: nn.HardTanh, Lo: up.Lo, Hi: up.Hi}, outward.AddDown(x.Lo, r), outward.AddUp(x.Hi, r))
	// ht(v - r) >= A (v - r) + C and ht(v + r) <= A (v + r) + C.
	lower.C = outward.SubDown(lower.C, outward.MulUp(lower.A, r))
	upper.C = outward.AddUp(upper.C, outward.MulUp(upper.A, r))
	mid := x.Lo/2 + x.Hi/2
	if ok && img.Hi-img.Lo < (upper.A-lower.A)*mid+upper.C-lower.C {
		return line{0, img.Lo}, line{0, img.Hi}
	}
	return lower, upper
}

// maxPoolImage returns the enclosure of each window's maximum.
func maxPoolImage(wins [][]int, x []Interval) []Interval {
	out := make([]Interval, len(wins))
	for i, w := range wins {
		o := Interval{math.Inf(-1), math.Inf(-1)}
		for _, j := range w {
			o = Interval{max(o.Lo, x[j].Lo), max(o.Hi, x[j].Hi)}
		}
		out[i] = o
	}
	return out
}

// maxPoolRelax returns the relaxation of the max pool of windows wins on
// the input bounds x (see the comment at the top of the file).
func maxPoolRelax(wins [][]int, x []Interval) *graphRelax {
	n := len(wins)
	rel := &graphRelax{low: make([]line, n), up: make([]line, n), lowAt: make([]int32, n), upAt: make([]int32, n)}
	reads := make([]int, len(x))
	for i, w := range wins {
		jl, ju := w[0], w[0]
		for _, j := range w {
			if x[j].Lo > x[jl].Lo {
				jl = j
			}
			if x[j].Hi > x[ju].Hi {
				ju = j
			}
		}
		other := math.Inf(-1) // the largest upper bound besides ju's
		for _, j := range w {
			if j != ju {
				other = max(other, x[j].Hi)
			}
		}
		rel.low[i], rel.lowAt[i] = line{1, 0}, int32(jl)
		rel.up[i], rel.upAt[i] = maxChord(x[ju], other), int32(ju)
		reads[jl]++
		reads[ju]++
	}
	rel.fanIn = max(1, maxInt(reads))
	return rel
}

// maxChord returns a line above max(s, other) for s in x: s itself when
// x.Lo >= other, else the chord from (x.Lo, other) to (x.Hi, x.Hi) with
// its offset the larger of max(s, other) - A s at the ends (the function
// is convex), rounded up.
func maxChord(x Interval, other float64) line {
	if x.Lo >= other {
		return line{1, 0}
	}
	if x.Hi <= other {
		return line{0, other}
	}
	a := (x.Hi - other) / (x.Hi - x.Lo)
	a = min(max(a, 0), 1)
	c := max(outward.SubUp(x.Hi, outward.MulDown(a, x.Hi)), outward.SubUp(other, outward.MulDown(a, x.Lo)))
	return line{a, c}
}

// maxInt returns the largest of v (0 for none).
func maxInt(v []int) int {
	m := 0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// nodeRelax returns the relaxation of the nonlinear node op on the bounds
// in of its inputs.
func nodeRelax(op nn.Op, in [][]Interval) *graphRelax {
	if isPair(op) {
		return pairRelax(op, in)
	}
	if r, ok := op.(roundOff); ok {
		return r.relaxation(in)
	}
	x := in[0]
	switch o := op.(type) {
	case *nn.MaxPool:
		return maxPoolRelax(o.Windows(), x)
	case nn.Act:
		rel := &graphRelax{low: make([]line, len(x)), up: make([]line, len(x)), fanIn: 1}
		for i, v := range x {
			rel.low[i], rel.up[i] = relax(o.Act, v.Lo, v.Hi)
		}
		return rel
	case *nn.Quantise:
		rel := &graphRelax{low: make([]line, len(x)), up: make([]line, len(x)), fanIn: 1}
		for i, v := range x {
			rel.low[i], rel.up[i] = quantLines(o.Q, i, v)
		}
		return rel
	case nn.Unary:
		rel := &graphRelax{low: make([]line, len(x)), up: make([]line, len(x)), fanIn: 1}
		for i, v := range x {
			rel.low[i], rel.up[i] = unaryLines(o, v)
		}
		return rel
	case nn.Mul:
		n := len(x)
		rel := &graphRelax{low: make([]line, n), up: make([]line, n), lowB: make([]float64, n), upB: make([]float64, n), fanIn: 1}
		for i, v := range x {
			lo, up := mulLines(v, in[1][i])
			rel.low[i], rel.lowB[i] = line{lo.A, lo.C}, lo.B
			rel.up[i], rel.upB[i] = line{up.A, up.C}, up.B
		}
		return rel
	}
	return nil // a linear node
}

// nonlinear reports whether op is relaxed in back-substitution.
func nonlinear(op nn.Op) bool {
	switch o := op.(type) {
	case nn.Act:
		return o.Act.Kind != nn.Identity
	case *nn.Quantise, *nn.MaxPool, pairAct, pairQuant, pairMax, pairUnary, nn.Unary, nn.Mul, roundOff:
		return true
	}
	return false
}

// needsTight reports whether the relaxation of op depends on the bound x
// of input value i beyond its sign pattern: a kink (or, for a smooth
// activation, any point) inside x, a quantiser, or a max pool input.
func needsTight(op nn.Op, x Interval) bool {
	switch o := op.(type) {
	case nn.Act:
		switch o.Act.Kind {
		case nn.Identity:
			return false
		case nn.Tanh, nn.Sigmoid:
			return true
		case nn.ELU:
			return x.Lo < 0
		}
		return straddlesKink(o.Act, x)
	case *nn.Quantise, *nn.MaxPool, nn.Unary, nn.Mul:
		return true
	}
	return false
}

// linearImage returns an enclosure of {M x + B : x in the box x} in
// centre-radius form: M applied to the midpoints, |M| to the radii. With
// n = M.In() terms per output, the computed centre is within
// 2 (n+2) u (|M| |mid| + |B|) + (n+2) 2^-1074 of the exact one (DotErr),
// and |M| rad, a sum of non-negative terms, within the factor sumFactor(n).
func linearImage(m, abs nn.Linear, b []float64, x []Interval) []Interval {
	n := m.In()
	mid, rad := make([]float64, n), make([]float64, n)
	for j, v := range x {
		mid[j] = v.Lo/2 + v.Hi/2
		rad[j] = max(outward.SubUp(v.Hi, mid[j]), outward.SubUp(mid[j], v.Lo))
		if math.IsInf(v.Lo, 0) || math.IsInf(v.Hi, 0) {
			mid[j], rad[j] = 0, math.Inf(1)
		}
	}
	out := make([]Interval, m.Out())
	c, t, r := make([]float64, m.Out()), make([]float64, m.Out()), make([]float64, m.Out())
	m.Apply(c, mid)
	for j := range mid {
		mid[j] = math.Abs(mid[j])
	}
	abs.Apply(t, mid)
	abs.Apply(r, rad)
	f := sumFactor(n)
	for i := range out {
		bi := 0.0
		if b != nil {
			bi = b[i]
		}
		centre := c[i] + bi
		err := outward.DotErr(outward.AddUp(outward.MulUp(t[i], f), math.Abs(bi)), n)
		rr := outward.AddUp(outward.MulUp(r[i], f), outward.AddUp(err, float64(n+2)*outward.Tiny))
		out[i] = Interval{outward.DownBy(centre, rr), outward.UpBy(centre, rr)}
		if math.IsNaN(centre) || math.IsInf(rr, 1) {
			out[i] = Interval{math.Inf(-1), math.Inf(1)}
		}
	}
	return out
}

// nodeImage returns an enclosure of the output of node op over inputs in
// the boxes in (abs is |M| for an affine node).
func nodeImage(op nn.Op, abs nn.Linear, in [][]Interval) []Interval {
	switch o := op.(type) {
	case *nn.Affine:
		return linearImage(o.M, abs, o.B, in[0])
	case nn.Act:
		out := make([]Interval, len(in[0]))
		for i, v := range in[0] {
			out[i] = actImage(o.Act, v)
		}
		return out
	case *nn.Quantise:
		out := make([]Interval, len(in[0]))
		for i, v := range in[0] {
			out[i] = quantImage(o.Q, i, v)
		}
		return out
	case nn.Add:
		out := make([]Interval, len(in[0]))
		for i, v := range in[0] {
			if o.Negate {
				out[i] = v.Sub(in[1][i])
			} else {
				out[i] = v.Add(in[1][i])
			}
		}
		return out
	case nn.Concat:
		var out []Interval
		for _, x := range in {
			out = append(out, x...)
		}
		return out
	case *nn.MaxPool:
		return maxPoolImage(o.Windows(), in[0])
	case nn.Unary:
		out := make([]Interval, len(in[0]))
		for i, v := range in[0] {
			out[i] = unaryImage(o, v)
		}
		return out
	case nn.Mul:
		out := make([]Interval, len(in[0]))
		for i, v := range in[0] {
			out[i] = mulImage(v, in[1][i])
		}
		return out
	case pairAct, pairQuant, pairMax, pairUnary:
		return pairImage(op, in)
	case roundOff:
		return o.image(in)
	case chainDiff:
		return chainImage(in)
	}
	panic("bounds: unknown graph operation")
}
