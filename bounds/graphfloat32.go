package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Float32 evaluation (GraphOptions.Float32). The enclosure of every value
// then also holds its value under any float32 evaluation of the graph in
// which each operation is computed on float32 values and its result
// rounded to nearest, in any order of summation (nn.Graph.EvalFloat32,
// onnxruntime's and torch's CPU kernels; not transforms that are not sums
// of the products, such as Winograd or FFT convolutions). With
// u = 2^-24 and gamma_k = k u / (1 - k u) (Higham, Lemma 3.1), the
// rounding of each operation is enclosed by a node y' = y + e inserted
// after it (roundOff), |e_i| <= r_i, r_i from the bounds of its inputs:
//
//	input x            r = u |x|                      (rounding to float32)
//	affine M x + B     r = gamma_{n+2} (|M| |x| + |B|) + (n+2) 2^-149
//	                       (n terms per output: KH KW InC / Groups for a
//	                       convolution, the window for an average pool;
//	                       n + 2 covers the weights rounded to float32 and
//	                       a pool's division)
//	Add, Mul           r = u |y|
//	leaky ReLU,        r = gamma_2 |y|   (the slope or the ends rounded)
//	  hard-tanh
//	tanh, sigmoid,     r = lib32Rel (|y| + |x| + 1 + |alpha|) + 2^-126
//	  ELU, nn.Unary        (a library's float32 function: an assumed
//	                       error, see lib32Rel; the absolute terms cover
//	                       formulas that cancel, exp(x) - 1 for ELU,
//	                       1 + erf(x) for GELU, near 0 or for large |x|)
//	quantiser          before it r = gamma_2 |v| (fl(v / fl(s)) = (v / s)
//	                   (1 + theta), |theta| <= gamma_2, so a near-tie may
//	                   round either way), after it r = gamma_2 |y| (the
//	                   dequantisation with the rounded scale)
//
// with |.| the magnitudes of the enclosures, plus 2^-149 per operation for
// underflow. ReLU, max pools, concatenations and selections (nn.Gather
// without a bias) are exact. The exact value lies in [y - r, y + r] as well, so each
// enclosure holds both the real-arithmetic value and the float32 one, and
// in a pair both networks' evaluations (the difference graph takes
// e2 - e1 within r1 + r2).
//
// In back-substitution y' is relaxed by the lines y - r <= y' <= y + r,
// with constant r, so it costs one elementwise step and no rows.

const (
	// unit32 is the unit roundoff of float32, 2^-24.
	unit32 = 0x1p-24
	// tiny32 bounds the absolute error of one float32 operation near
	// underflow (half the smallest subnormal, rounded up to it).
	tiny32 = 0x1p-149
	// lib32Rel is the relative error assumed of a float32 library's tanh,
	// sigmoid, exp, erf, sqrt and reciprocal (16 ulps of float32): the
	// vectorised kernels of onnxruntime (MLAS) and torch (Sleef, Eigen)
	// document errors of a few ulps. An assumption about the libraries,
	// not a proof.
	lib32Rel = 0x1p-20
	// lib32Abs is the absolute error added to lib32Rel's near underflow.
	lib32Abs = 0x1p-126
)

// gamma32 returns gamma_k for float32, rounded up.
func gamma32(k int) float64 {
	ku := float64(k) * unit32
	return outward.Up(outward.Up(ku) / outward.Down(1-ku))
}

// roundTerm is one contribution to the radius of a roundOff node:
//
//	r_i += gamma (|M| m + |B|)_i + tiny,   m = the sum of the magnitudes
//
// of the node's inputs at the positions ins (abs nil: |M| the identity).
type roundTerm struct {
	abs   nn.Linear
	bias  []float64
	gamma float64
	tiny  float64
	ins   []int
}

// roundOff is y' = y + e, |e_i| <= r_i, r the sum of its terms: its first
// input is y, the others are read only for the magnitudes of the terms.
type roundOff struct{ terms []roundTerm }

// Eval sets dst to the first input (the exact value).
func (r roundOff) Eval(dst []float64, in [][]float64) { copy(dst, in[0]) }

// Describe names the node.
func (r roundOff) Describe() string { return "float32 rounding" }

// radius returns the radii r_i for inputs in the boxes in, rounded up
// (+Inf where a magnitude is).
func (r roundOff) radius(in [][]Interval) []float64 {
	n := len(in[0])
	rad := make([]float64, n)
	for _, t := range r.terms {
		m := make([]float64, len(in[t.ins[0]]))
		for _, p := range t.ins {
			for j, x := range in[p] {
				m[j] = outward.AddUp(m[j], x.Mag())
			}
		}
		am := m
		if t.abs != nil {
			am = make([]float64, n)
			t.abs.Apply(am, m)
			f := sumFactor(t.abs.In())
			for i := range am {
				am[i] = outward.MulUp(am[i], f)
			}
		}
		for i := range rad {
			s := am[i]
			if t.bias != nil {
				s = outward.AddUp(s, math.Abs(t.bias[i]))
			}
			rad[i] = outward.AddUp(rad[i], outward.AddUp(outward.MulUp(t.gamma, s), t.tiny))
			if !(s <= math.MaxFloat32/2) { // a partial sum may overflow
				rad[i] = math.Inf(1)
			}
		}
	}
	for i, v := range rad {
		if v != v || v > math.MaxFloat32 || !(in[0][i].Mag() <= math.MaxFloat32/2) {
			rad[i] = math.Inf(1) // float32 overflows: no bound
		}
	}
	return rad
}

// image returns the enclosure [y - r, y + r] of the node's output.
func (r roundOff) image(in [][]Interval) []Interval {
	rad := r.radius(in)
	out := make([]Interval, len(in[0]))
	for i, x := range in[0] {
		out[i] = Interval{outward.SubDown(x.Lo, rad[i]), outward.AddUp(x.Hi, rad[i])}
	}
	return out
}

// relaxation returns the lines y - r and y + r.
func (r roundOff) relaxation(in [][]Interval) *graphRelax {
	rad := r.radius(in)
	rel := &graphRelax{low: make([]line, len(rad)), up: make([]line, len(rad)), fanIn: 1}
	for i, v := range rad {
		rel.low[i], rel.up[i] = line{1, -v}, line{1, v}
	}
	return rel
}

// selfTerm returns the term gamma |y| + tiny of the node's first input.
func selfTerm(gamma, tiny float64) roundTerm {
	return roundTerm{gamma: gamma, tiny: tiny, ins: []int{0}}
}

// float32Graph returns g with a roundOff node after every operation that
// rounds (and one before each quantiser and after the input), and the map
// from each value of g to the value of the result that encloses it.
func float32Graph(g *nn.Graph) (*nn.Graph, []int) {
	h := &nn.Graph{InputShape: g.InputShape}
	vmap := make([]int, len(g.Nodes)+1)
	add := func(n nn.Node) int {
		h.Nodes = append(h.Nodes, n)
		return len(h.Nodes)
	}
	shape0 := g.InputShape
	vmap[0] = add(nn.Node{Op: roundOff{[]roundTerm{selfTerm(unit32, tiny32)}}, Inputs: []int{0}, Shape: shape0, Name: "float32 input"})
	for k, node := range g.Nodes {
		ins := make([]int, len(node.Inputs))
		for i, v := range node.Inputs {
			ins[i] = vmap[v]
		}
		if _, ok := node.Op.(*nn.Quantise); ok {
			in := g.Shape(node.Inputs[0])
			ins[0] = add(nn.Node{Op: roundOff{[]roundTerm{selfTerm(gamma32(2), tiny32)}}, Inputs: []int{ins[0]}, Shape: in, Name: node.Name + " float32 division"})
		}
		y := add(nn.Node{Op: node.Op, Inputs: ins, Shape: node.Shape, Name: node.Name})
		vmap[k+1] = y
		if ts := rounding(node.Op); ts != nil {
			in := []int{y}
			for _, t := range ts {
				if t.ins[0] == 1 && len(in) == 1 {
					in = append(in, ins[0])
				}
			}
			vmap[k+1] = add(nn.Node{Op: roundOff{ts}, Inputs: in, Shape: node.Shape, Name: node.Name + " float32"})
		}
	}
	return h, vmap
}

// rounding returns the terms of the rounding of op's float32 evaluation
// (reading its first input at position 1 of the roundOff node, its output
// at 0), or nil for an exact operation.
func rounding(op nn.Op) []roundTerm {
	one := func(t roundTerm) []roundTerm { return []roundTerm{t} }
	switch o := op.(type) {
	case *nn.Affine:
		if _, ok := o.M.(*nn.Gather); ok && o.B == nil {
			return nil
		}
		n := affineTerms(o.M)
		return one(roundTerm{abs: o.M.AbsMap(), bias: o.B, gamma: gamma32(n + 2), tiny: float64(n+2) * tiny32, ins: []int{1}})
	case nn.Act:
		switch o.Act.Kind {
		case nn.Identity, nn.ReLU:
			return nil
		case nn.LeakyReLU, nn.HardTanh:
			return one(selfTerm(gamma32(2), tiny32))
		}
		return libTerms(math.Abs(o.Act.Alpha))
	case nn.Unary:
		return libTerms(0)
	case *nn.Quantise:
		return one(selfTerm(gamma32(2), tiny32))
	case nn.Add, nn.Mul:
		return one(selfTerm(unit32, tiny32))
	}
	return nil // max pool, concat
}

// libTerms returns the terms of a float32 library function y = f(x):
// lib32Rel (|y| + |x| + 1 + alpha) + lib32Abs.
func libTerms(alpha float64) []roundTerm {
	abs := outward.AddUp(outward.MulUp(lib32Rel, 1+alpha), lib32Abs)
	return []roundTerm{selfTerm(lib32Rel, abs), {gamma: lib32Rel, ins: []int{1}}}
}

// affineTerms returns the most products summed into one output of m.
func affineTerms(m nn.Linear) int {
	switch o := m.(type) {
	case *nn.Conv2D:
		return o.KH * o.KW * o.InC / max(o.Groups, 1)
	case *nn.AvgPool2D:
		return o.KH * o.KW
	case *nn.Scale:
		return 1
	case *nn.RowMap:
		_, c := o.W.Dims()
		return c
	}
	return m.In()
}

// roundDiff appends the difference of the roundOff nodes o1 and o2 on the
// values z of g1 and d of the differences, and returns its value:
// y2' - y1' = (y2 - y1) + e2 - e1 with |e2 - e1| <= r1 + r2, r2 taken on
// the magnitudes of g2's inputs z + d (at most |z| + |d|). Its inputs are
// d[0], then z, then d again (for the magnitudes).
func (pg *pairGraph) roundDiff(o1, o2 roundOff, z, d []int, shape []int) int {
	k := len(z)
	ins := append(append([]int{d[0]}, z...), d...)
	var terms []roundTerm
	for _, t := range o1.terms {
		u := t
		u.ins = make([]int, len(t.ins))
		for i, p := range t.ins {
			u.ins[i] = 1 + p
		}
		terms = append(terms, u)
	}
	for _, t := range o2.terms {
		u := t
		u.ins = nil
		for _, p := range t.ins {
			u.ins = append(u.ins, 1+p, 1+k+p)
		}
		terms = append(terms, u)
	}
	return pg.add(nn.Node{Op: roundOff{terms}, Inputs: ins, Shape: shape})
}

// remap returns the bounds of the values of a graph from those of its
// float32 graph (float32Graph's map vmap).
func (net *GraphNet) remap(vmap []int) *GraphNet {
	vals := make([][]Interval, len(vmap))
	for v, w := range vmap {
		vals[v] = net.Values[w]
	}
	return &GraphNet{Values: vals, Output: vals[len(vals)-1], Rows: net.Rows}
}
