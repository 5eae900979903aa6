package onnx

import (
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// The elementwise nonlinear operators of the graph reader: each is an
// nn.Act node, with affine nodes around it where the operator is an
// activation of an affine function of its input.

// gopActivation translates Relu, Tanh, Sigmoid, LeakyRelu and Elu.
func gopActivation(b *graphBuilder, n *node, in []gin) error {
	x, _, err := unary(n, in, false)
	if err != nil {
		return err
	}
	if len(in) != 1 {
		return fmt.Errorf("%d inputs, want 1: %w", len(in), ErrMalformed)
	}
	act := nn.Activation{}
	switch n.opType {
	case "Relu":
		return b.clip(n, x, n.inputs[0], repeat(x.s.size(), 0), repeat(x.s.size(), math.Inf(1)))
	case "Tanh":
		act.Kind = nn.Tanh
	case "Sigmoid":
		act.Kind = nn.Sigmoid
	case "LeakyRelu":
		b.leaky(n, x, n.inputs[0], n.floatAttr("alpha", float64(float32(0.01))))
		return nil
	case "Elu":
		act = nn.Activation{Kind: nn.ELU, Alpha: n.floatAttr("alpha", 1)}
	}
	b.set(n, b.emit(n, nn.Act{Act: act}, x.s, x.v))
	return nil
}

// gopHardSigmoid translates HardSigmoid, max(0, min(1, alpha x + beta)):
// an affine scaling and hardtanh(0, 1).
func gopHardSigmoid(b *graphBuilder, n *node, in []gin) error {
	x, _, err := unary(n, in, false)
	if err != nil {
		return err
	}
	alpha, beta := n.floatAttr("alpha", float64(float32(0.2))), n.floatAttr("beta", float64(float32(0.5)))
	size := x.s.size()
	s, err := b.bud.vec(2 * size)
	if err != nil {
		return err
	}
	for i := range size {
		s[i], s[size+i] = alpha, beta
	}
	t := b.emit(n, &nn.Affine{M: &nn.Scale{S: s[:size]}, B: s[size:]}, x.s, x.v)
	return b.clip(n, t, "", repeat(size, 0), repeat(size, 1))
}

// gopPRelu translates PRelu: a LeakyReLU when the slope is one value, and
// otherwise, with the slope a broadcast to the data,
//
//	prelu(x) = relu(x) - a * relu(-x),
//
// exact in floating point (one of the two terms is zero, and negation is
// exact).
func gopPRelu(b *graphBuilder, n *node, in []gin) error {
	x, ops, err := unary(n, in, false)
	if err != nil {
		return err
	}
	c, slope, err := ops.constFloats(1)
	if err == nil {
		err = finite(slope)
	}
	if err != nil {
		return err
	}
	out, xi, ci, err := broadcastConst(x.s, c.dims, x.s.size())
	if err != nil || out.size() != x.s.size() || !isRange(xi) {
		return fmt.Errorf("slope of shape %v for data %v: %w", c.dims, x.s, ErrShape)
	}
	a, err := b.bud.vec(2 * len(ci))
	if err != nil {
		return err
	}
	neg, pos := a[:len(ci)], a[len(ci):]
	uniform := true
	for o, j := range ci {
		neg[o], pos[o] = -1, slope[j]
		uniform = uniform && slope[j] == slope[0]
	}
	if uniform {
		b.leaky(n, x, n.inputs[0], slope[0])
		return nil
	}
	relu := nn.Act{Act: nn.Activation{Kind: nn.ReLU}}
	r := b.emit(n, relu, x.s, x.v)
	m := b.emit(n, &nn.Affine{M: &nn.Scale{S: neg}}, x.s, x.v)
	m = b.emit(n, relu, x.s, m.v)
	m = b.emit(n, &nn.Affine{M: &nn.Scale{S: pos}}, x.s, m.v)
	b.set(n, b.emit(n, nn.Add{Negate: true}, x.s, r.v, m.v))
	return nil
}

// isRange reports whether xi is 0, 1, ..., len(xi)-1.
func isRange(xi []int) bool {
	for i, v := range xi {
		if v != i {
			return false
		}
	}
	return true
}

// gopClip translates Clip (bounds from attributes before opset 11, from
// inputs since) and Max and Min with constants, broadcast to the data: a
// clipping with bounds per value.
func gopClip(b *graphBuilder, n *node, in []gin) error {
	x, ops, err := unary(n, in, n.opType != "Clip")
	if err != nil {
		return err
	}
	if ts, _ := computed(in); len(ts) != 1 {
		return fmt.Errorf("%s of %d computed tensors: %w", n.opType, len(ts), ErrUnsupportedOp)
	}
	size := x.s.size()
	lo, hi := repeat(size, math.Inf(-1)), repeat(size, math.Inf(1))
	if n.opType == "Clip" {
		lo, hi = repeat(size, n.floatAttr("min", lo[0])), repeat(size, n.floatAttr("max", hi[0]))
	}
	for i, c := range ops.consts {
		if c == nil {
			continue
		}
		v, err := c.floats()
		if err != nil {
			return err
		}
		if n.opType == "Clip" && len(v) != 1 {
			return fmt.Errorf("Clip bound of shape %v, want a scalar: %w", c.dims, ErrShape)
		}
		out, xi, ci, err := broadcastConst(x.s, c.dims, size)
		if err != nil || out.size() != size || !isRange(xi) {
			return fmt.Errorf("bound of shape %v for data %v: %w", c.dims, x.s, ErrShape)
		}
		for o, j := range ci {
			if n.opType == "Max" || (n.opType == "Clip" && i == 1) {
				lo[o], hi[o] = max(lo[o], v[j]), max(hi[o], v[j])
			} else {
				lo[o], hi[o] = min(lo[o], v[j]), min(hi[o], v[j])
			}
		}
	}
	return b.clip(n, x, n.inputs[ops.data], lo, hi)
}

// repeat returns n copies of v.
func repeat(n int, v float64) []float64 { return slices.Repeat([]float64{v}, n) }

// clipped records a clipping the reader made: bounds per value, the value
// clipped and the number of nodes before it.
type clipped struct {
	lo, hi      []float64
	from, start int
}

// clip sets n's output to min(max(x_i, lo_i), hi_i). Values with the same
// bounds are clipped together by one activation: with several kinds of
// bounds, each kind is gathered, clipped, and the parts concatenated and
// put back in order. A clipping of the output (named name) of the
// clipping just made, that nothing else reads, replaces it: the clipping
// to [l1, h1] and then to [lo, hi] is the clipping to [c(l1), c(h1)], c
// the second.
func (b *graphBuilder) clip(n *node, x tval, name string, lo, hi []float64) error {
	if r, ok := b.lastClip(x, name); ok {
		for i := range lo {
			c := func(v float64) float64 { return min(max(v, lo[i]), hi[i]) }
			lo[i], hi[i] = c(r.lo[i]), c(r.hi[i])
		}
		b.out.Nodes = b.out.Nodes[:r.start]
		for v := range b.clips {
			if v > r.start {
				delete(b.clips, v) // values to be made again
			}
		}
		return b.clip(n, tval{v: r.from, s: x.s}, "", lo, hi)
	}
	start := len(b.out.Nodes)
	type pair struct{ lo, hi float64 }
	var kinds []pair
	group := map[pair][]int{}
	for i := range lo {
		p := pair{lo[i], hi[i]}
		if math.IsNaN(p.lo) || math.IsNaN(p.hi) || p.lo > p.hi {
			return fmt.Errorf("clipping bounds [%v, %v]: %w", p.lo, p.hi, nn.ErrBounds)
		}
		if group[p] == nil {
			kinds = append(kinds, p)
		}
		group[p] = append(group[p], i)
	}
	t := x
	if len(kinds) == 1 {
		t = b.clipAct(n, x, kinds[0].lo, kinds[0].hi)
	} else {
		parts, order := make([]int, len(kinds)), make([]int, 0, len(lo))
		for k, p := range kinds {
			idx := group[p]
			s := shape{dims: []int64{int64(len(idx))}, batch: -1}
			g := b.emit(n, &nn.Affine{M: &nn.Gather{N: len(lo), Index: idx}}, s, x.v)
			parts[k] = b.clipAct(n, g, p.lo, p.hi).v
			order = append(order, idx...)
		}
		back := make([]int, len(order))
		for k, i := range order {
			back[i] = k
		}
		c := b.emit(n, nn.Concat{}, shape{dims: []int64{int64(len(lo))}, batch: -1}, parts...)
		t = b.emit(n, &nn.Affine{M: &nn.Gather{N: len(lo), Index: back}}, x.s, c.v)
	}
	if t.v != x.v {
		b.clips[t.v] = clipped{lo: lo, hi: hi, from: x.v, start: start}
	}
	b.set(n, t)
	return nil
}

// clipAct returns x clipped to [lo, hi]: a ReLU, a HardTanh (an infinite
// bound as the largest float64), or x itself.
func (b *graphBuilder) clipAct(n *node, x tval, lo, hi float64) tval {
	act := nn.Activation{Kind: nn.HardTanh, Lo: max(lo, -math.MaxFloat64), Hi: min(hi, math.MaxFloat64)}
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return x
	case lo == 0 && math.IsInf(hi, 1):
		act = nn.Activation{Kind: nn.ReLU}
	}
	return b.emit(n, nn.Act{Act: act}, x.s, x.v)
}

// lastClip returns the clipping whose output is x, when soleLast.
func (b *graphBuilder) lastClip(x tval, name string) (clipped, bool) {
	r, ok := b.clips[x.v]
	return r, ok && b.soleLast(x, name)
}

// soleLast reports whether x is the output of the last node made, read by
// one node (the one being translated) under the name name and by no other
// under any name, and no graph output.
func (b *graphBuilder) soleLast(x tval, name string) bool {
	if name == "" || x.v == 0 || x.v != len(b.out.Nodes) {
		return false
	}
	for nm, t := range b.vals {
		readers := len(b.reads[nm])
		if nm == name {
			readers-- // the node being translated
		}
		if t.v == x.v && (readers > 0 || b.isOutput(nm)) {
			return false
		}
	}
	return true
}

// leaky sets n's output to the LeakyReLU with slope alpha of x, or, when
// x is the output of an ELU with alpha 1 that nothing else reads, to the
// ELU with alpha: for s < 0, elu_1(s) = expm1(s) < 0 is scaled by alpha,
// which is elu_alpha(s) to the bit (the QDQ writer stores an ELU alpha that
// is not a float32 this way).
func (b *graphBuilder) leaky(n *node, x tval, name string, alpha float64) {
	if b.soleLast(x, name) {
		last := &b.out.Nodes[x.v-1]
		if a, ok := last.Op.(nn.Act); ok && a.Act == (nn.Activation{Kind: nn.ELU, Alpha: 1}) {
			last.Op = nn.Act{Act: nn.Activation{Kind: nn.ELU, Alpha: alpha}}
			b.set(n, x)
			return
		}
	}
	b.set(n, b.emit(n, nn.Act{Act: nn.Activation{Kind: nn.LeakyReLU, Alpha: alpha}}, x.s, x.v))
}
