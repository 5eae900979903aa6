package bounds

import (
	"math"
	"math/rand/v2"

	"github.com/nnbound/nnbound/nn"
	"gonum.org/v1/gonum/mat"
)

// graphBuilder appends nodes to a graph, drawing weights from rng.
type graphBuilder struct {
	g   *nn.Graph
	rng *rand.Rand
}

// newGraphBuilder starts a graph with input shape in.
func newGraphBuilder(rng *rand.Rand, in ...int) *graphBuilder {
	return &graphBuilder{g: &nn.Graph{InputShape: in}, rng: rng}
}

// add appends op reading the values in, of output shape shape, and returns
// its value.
func (b *graphBuilder) add(op nn.Op, shape []int, in ...int) int {
	b.g.Nodes = append(b.g.Nodes, nn.Node{Op: op, Inputs: in, Shape: shape})
	return len(b.g.Nodes)
}

// normals returns n normal draws times sd.
func (b *graphBuilder) normals(n int, sd float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = sd * b.rng.NormFloat64()
	}
	return v
}

// conv appends a k x k convolution of value v (CHW) to outC channels with
// He weights and small biases (one per channel); padding keeps the size at stride 1.
func (b *graphBuilder) conv(v, outC, k, stride int) int {
	s := b.g.Shape(v)
	pad := (k - 1) / 2
	oh, ow := (s[1]+2*pad-k)/stride+1, (s[2]+2*pad-k)/stride+1
	c := &nn.Conv2D{InC: s[0], InH: s[1], InW: s[2], OutC: outC, OutH: oh, OutW: ow, KH: k, KW: k,
		Stride: [2]int{stride, stride}, Pad: [2]int{pad, pad}, Dil: [2]int{1, 1}, Groups: 1,
		Kernel: b.normals(outC*s[0]*k*k, math.Sqrt(2/float64(s[0]*k*k)))}
	bias := make([]float64, 0, c.Out()) // one per channel
	for _, bc := range b.normals(outC, 0.1) {
		for range oh * ow {
			bias = append(bias, bc)
		}
	}
	return b.add(&nn.Affine{M: c, B: bias}, []int{outC, oh, ow}, v)
}

// dense appends a dense map of value v to out values (He weights).
func (b *graphBuilder) dense(v, out int) int {
	n := b.g.Size(v)
	w := mat.NewDense(out, n, b.normals(out*n, math.Sqrt(2/float64(n))))
	return b.add(&nn.Affine{M: nn.DenseMap{W: w}, B: b.normals(out, 0.1)}, []int{out}, v)
}

// act appends the activation a of value v.
func (b *graphBuilder) act(v int, a nn.Activation) int {
	return b.add(nn.Act{Act: a}, b.g.Shape(v), v)
}

// relu appends a ReLU of value v.
func (b *graphBuilder) relu(v int) int { return b.act(v, nn.Activation{Kind: nn.ReLU}) }

// join appends v + u (v - u with negate).
func (b *graphBuilder) join(v, u int, negate bool) int {
	return b.add(nn.Add{Negate: negate}, b.g.Shape(v), v, u)
}

// pool returns the geometry of a k x k pooling with stride k of value v.
func (b *graphBuilder) pool(v, k int) nn.Pool2D {
	s := b.g.Shape(v)
	return nn.Pool2D{C: s[0], InH: s[1], InW: s[2], OutH: s[1] / k, OutW: s[2] / k, KH: k, KW: k,
		Stride: [2]int{k, k}, Dil: [2]int{1, 1}}
}

// maxPool appends a k x k max pool with stride k.
func (b *graphBuilder) maxPool(v, k int) int {
	p := b.pool(v, k)
	return b.add(&nn.MaxPool{Pool2D: p}, []int{p.C, p.OutH, p.OutW}, v)
}

// globalAvg appends the average over each channel's plane.
func (b *graphBuilder) globalAvg(v int) int {
	s := b.g.Shape(v)
	p := b.pool(v, s[1])
	p.KW, p.Stride[1], p.OutW = s[2], s[2], 1
	return b.add(&nn.Affine{M: &nn.AvgPool2D{Pool2D: p}}, []int{s[0]}, v)
}

// quantise appends a uint8 quantiser of step s with zero point z.
func (b *graphBuilder) quantise(v int, s float64, z int64) int {
	q := &nn.Quantiser{Scale: []float64{s}, Zero: []int64{z}, Lo: nn.Uint8Lo, Hi: nn.Uint8Hi}
	return b.add(&nn.Quantise{Q: q}, b.g.Shape(v), v)
}

// randActivation returns an activation of a random kind.
func randActivation(rng *rand.Rand) nn.Activation {
	switch rng.IntN(8) {
	case 5:
		return nn.Activation{Kind: nn.Identity}
	case 0:
		return nn.Activation{Kind: nn.LeakyReLU, Alpha: 0.1}
	case 1:
		return nn.Activation{Kind: nn.Tanh}
	case 2:
		return nn.Activation{Kind: nn.Sigmoid}
	case 3:
		return nn.Activation{Kind: nn.ELU, Alpha: 1}
	case 4:
		return nn.Activation{Kind: nn.HardTanh, Lo: -1, Hi: 1}
	}
	return nn.Activation{Kind: nn.ReLU}
}

// randGraph returns a small random graph on 2x4x4 inputs with every kind
// of operation: convolutions, random activations, a quantiser (saturating
// on part of the box), a residual join or difference, a concatenation, a
// max pool, an average pool, a scaling, a selection and dense maps.
func randGraph(rng *rand.Rand) *nn.Graph {
	b := newGraphBuilder(rng, 2, 4, 4)
	a := b.act(b.conv(0, 3, 3, 1), randActivation(rng))
	if rng.IntN(2) == 0 {
		a = b.quantise(a, 0.02+0.1*rng.Float64(), int64(rng.IntN(200)))
	}
	r := b.join(b.conv(a, 3, 3, 1), a, rng.IntN(3) == 0)
	r = b.act(r, randActivation(rng))
	cat := b.add(nn.Concat{}, []int{6, 4, 4}, r, a)
	m := b.maxPool(cat, 2) // 6x2x2
	s := b.add(&nn.Affine{M: &nn.Scale{S: b.normals(24, 1)}}, []int{24}, m)
	p := b.pool(cat, 2)
	p.Stride, p.OutH, p.OutW = [2]int{1, 1}, 3, 3
	avg := b.add(&nn.Affine{M: &nn.AvgPool2D{Pool2D: p}}, []int{6, 3, 3}, cat)
	idx := rng.Perm(54)[:24]
	idx[0] = -1 // a padded value
	sel := b.add(&nn.Affine{M: &nn.Gather{N: 54, Index: idx}, B: b.normals(24, 0.1)}, []int{24}, avg)
	h := b.act(b.dense(b.join(s, sel, false), 8), randActivation(rng))
	if rng.IntN(2) == 0 {
		h = b.quantise(h, 0.05, 128)
	}
	b.dense(h, 3)
	return b.g
}

// residualCNN returns the residual CNN on c x h x w inputs: a 3x3 stem
// convolution to widths[0] channels and ReLU, then per width a residual
// block (two 3x3 convolutions, the first with stride 2 when the width
// changes, and a strided 1x1 projection on the skip), a global average
// pool and a dense map to 10 outputs. He weights.
func residualCNN(rng *rand.Rand, c, h, w int, widths []int) *nn.Graph {
	b := newGraphBuilder(rng, c, h, w)
	x := b.relu(b.conv(0, widths[0], 3, 1))
	prev := widths[0]
	for _, wd := range widths {
		stride, skip := 1, x
		if wd != prev {
			stride = 2
			skip = b.conv(x, wd, 1, 2)
		}
		y := b.relu(b.conv(x, wd, 3, stride))
		y = b.conv(y, wd, 3, 1)
		x = b.relu(b.join(y, skip, false))
		prev = wd
	}
	b.dense(b.globalAvg(x), 10)
	return b.g
}

// perturbed returns a copy of g whose affine weights and biases are each
// multiplied by 1 + rel z, z standard normal.
func perturbed(rng *rand.Rand, g *nn.Graph, rel float64) *nn.Graph {
	c := g.Clone()
	jitter := func(v []float64) {
		for i := range v {
			v[i] *= 1 + rel*rng.NormFloat64()
		}
	}
	for _, n := range c.Nodes {
		a, ok := n.Op.(*nn.Affine)
		if !ok {
			continue
		}
		jitter(a.B)
		switch m := a.M.(type) {
		case *nn.Conv2D:
			jitter(m.Kernel)
		case nn.DenseMap:
			jitter(m.W.RawMatrix().Data)
		case *nn.RowMap:
			jitter(m.W.RawMatrix().Data)
		}
	}
	return c
}
