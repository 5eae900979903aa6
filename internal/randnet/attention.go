package randnet

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// Attention returns a random pre-norm attention block on t tokens of
// width d (a multiple of heads) with the given heads, built from nn's
// pieces as the ONNX reader builds them: LayerNorm (mean, centring, square, mean + eps, sqrt,
// reciprocal, product), per-token q, k, v maps, scores q k^T / sqrt(dh)
// (Gathers, Mul, Sparse sum), Softmax as 1 / sum_j exp(x_j - x_i), the
// product with v, a projection and a residual Add, then a GELU MLP (one
// exact GELU, one in its erf form) with a second residual Add.
func Attention(r *rand.Rand, t, d, heads int) *nn.Graph {
	b := &attnBuilder{g: &nn.Graph{InputShape: []int{t, d}}, r: r}
	x := b.layerNorm(0, t, d)
	q, k, v := b.tokenMap(x, t, d, d), b.tokenMap(x, t, d, d), b.tokenMap(x, t, d, d)
	dh := d / heads
	// scores s[h,i,j] = sum_c q[i, h dh + c] k[j, h dh + c] / sqrt(dh)
	qi := b.gather(q, t*d, heads*t*t*dh, func(o int) int { h, i, _, c := split4(o, t, t, dh); return i*d + h*dh + c })
	ki := b.gather(k, t*d, heads*t*t*dh, func(o int) int { h, _, j, c := split4(o, t, t, dh); return j*d + h*dh + c })
	s := b.sum(b.add(nn.Mul{}, heads*t*t*dh, qi, ki), heads*t*t, dh, 1/math.Sqrt(float64(dh)))
	p := b.softmax(s, heads*t, t)
	// o[i, h dh + c] = sum_j p[h,i,j] v[j, h dh + c], at [i, h, c, j]
	pi := b.gather(p, heads*t*t, t*d*t, func(o int) int { i, h, c, j := split4(o, heads, dh, t); _ = c; return (h*t+i)*t + j })
	vi := b.gather(v, t*d, t*d*t, func(o int) int { _, h, c, j := split4(o, heads, dh, t); return j*d + h*dh + c })
	o := b.sum(b.add(nn.Mul{}, t*d*t, pi, vi), t*d, t, 1)
	y := b.add(nn.Add{}, t*d, 0, b.tokenMap(o, t, d, d))
	// MLP: gelu(W1 z) and its erf form, W2, residual
	z := b.tokenMap(b.layerNorm(y, t, d), t, d, 2*d)
	g1 := b.add(nn.Unary{F: nn.GELU, C: 1 / math.Sqrt2}, t*2*d, z)
	e := b.add(nn.Unary{F: nn.Erf}, t*2*d, b.affine(&nn.Scale{S: fill(t*2*d, 1/math.Sqrt2)}, nil, t*2*d, z))
	g2 := b.add(nn.Mul{}, t*2*d, z, b.affine(&nn.Scale{S: fill(t*2*d, 0.5)}, fill(t*2*d, 0.5), t*2*d, e))
	h := b.add(nn.Add{}, t*2*d, g1, g2)
	return b.done(b.add(nn.Add{}, t*d, y, b.tokenMap(h, t, 2*d, d)), t, d)
}

// attnBuilder appends nodes to a graph of flat values.
type attnBuilder struct {
	g *nn.Graph
	r *rand.Rand
}

// add appends op reading ins with n values and returns its value.
func (b *attnBuilder) add(op nn.Op, n int, ins ...int) int {
	b.g.Nodes = append(b.g.Nodes, nn.Node{Op: op, Inputs: ins, Shape: []int{n}})
	return len(b.g.Nodes)
}

// affine appends M x + B.
func (b *attnBuilder) affine(m nn.Linear, bias []float64, n, x int) int {
	return b.add(&nn.Affine{M: m, B: bias}, n, x)
}

// gather appends the selection y_o = x_{src(o)} of n values from m.
func (b *attnBuilder) gather(x, m, n int, src func(o int) int) int {
	idx := make([]int, n)
	for o := range idx {
		idx[o] = src(o)
	}
	return b.affine(&nn.Gather{N: m, Index: idx}, nil, n, x)
}

// sum appends the sums (times w) of rows consecutive groups of size k.
func (b *attnBuilder) sum(x, rows, k int, w float64) int {
	m := &nn.Sparse{N: rows * k, Start: []int{0}}
	for i := range rows * k {
		m.Col, m.W = append(m.Col, i), append(m.W, w)
		if (i+1)%k == 0 {
			m.Start = append(m.Start, len(m.Col))
		}
	}
	return b.affine(m, nil, rows, x)
}

// tokenMap appends a random per-token affine map from width in to out (a
// row map, as the ONNX reader reads MatMul by a weight).
func (b *attnBuilder) tokenMap(x, t, in, out int) int {
	w := mat.NewDense(out, in, nil)
	bias := make([]float64, t*out)
	for j := range out {
		for i := range in {
			w.Set(j, i, b.r.NormFloat64()/math.Sqrt(float64(in)))
		}
		c := 0.1 * b.r.NormFloat64()
		for s := range t {
			bias[s*out+j] = c
		}
	}
	return b.affine(&nn.RowMap{W: w, Rows: t}, bias, t*out, x)
}

// layerNorm appends LayerNorm over each token's d values.
func (b *attnBuilder) layerNorm(x, t, d int) int {
	n := t * d
	bc := func(v int) int { return b.gather(v, t, n, func(o int) int { return o / d }) }
	mu := b.sum(x, t, d, 1/float64(d))
	c := b.add(nn.Add{Negate: true}, n, x, bc(mu))
	m := &nn.Sparse{N: n, Start: []int{0}}
	for i := range n {
		m.Col, m.W = append(m.Col, i), append(m.W, 1/float64(d))
		if (i+1)%d == 0 {
			m.Start = append(m.Start, len(m.Col))
		}
	}
	v := b.affine(m, fill(t, 1e-5), t, b.add(nn.Unary{F: nn.Square}, n, c))
	rs := b.add(nn.Unary{F: nn.Reciprocal}, t, b.add(nn.Unary{F: nn.Sqrt}, t, v))
	y := b.add(nn.Mul{}, n, c, bc(rs))
	s, sh := make([]float64, n), make([]float64, n)
	for i := range s {
		s[i], sh[i] = 1+0.2*b.r.NormFloat64(), 0.1*b.r.NormFloat64()
	}
	return b.affine(&nn.Scale{S: s}, sh, n, y)
}

// softmax appends the softmax of each of rows groups of k values.
func (b *attnBuilder) softmax(x, rows, k int) int {
	m := &nn.Sparse{N: rows * k, Start: []int{0}}
	for g := range rows {
		for i := range k {
			for j := range k {
				if j != i {
					m.Col, m.W = append(m.Col, g*k+j, g*k+i), append(m.W, 1, -1)
				}
				m.Start = append(m.Start, len(m.Col))
			}
		}
	}
	e := b.add(nn.Unary{F: nn.Exp}, rows*k*k, b.affine(m, nil, rows*k*k, x))
	return b.add(nn.Unary{F: nn.Reciprocal}, rows*k, b.sum(e, rows*k, k, 1))
}

// done sets the last node's shape to [t, d] and returns the graph.
func (b *attnBuilder) done(_ int, t, d int) *nn.Graph {
	b.g.Nodes[len(b.g.Nodes)-1].Shape = []int{t, d}
	return b.g
}

// split4 returns the digits of o in the mixed radix (., n1, n2, n3).
func split4(o, n1, n2, n3 int) (a, b, c, d int) {
	d, o = o%n3, o/n3
	c, o = o%n2, o/n2
	b, a = o%n1, o/n1
	return a, b, c, d
}

// fill returns n copies of v.
func fill(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}
