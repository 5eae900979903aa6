package search

import (
	"math"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// problem is one instance of the search: the error e(z) of the networks at
// the inputs encoded by a point z of the search box (z = x1 in in.Box, or
// z = (x1, x2) in in.Box x box2 for independent inputs).
type problem struct {
	m1, m2 model
	// f1 and f2 are the networks when both are chains (nil for graphs):
	// the exact enumeration reads their layers.
	f1, f2 *nn.Network
	in     spec.Inputs
	box2   spec.Box // the box of x2 for independent inputs
	q      spec.Quantity
	n      int       // input size
	lo, hi []float64 // the search box
	evals  int
}

// model is one network of the search, a chain or a graph, evaluated as its
// Eval evaluates it.
type model interface {
	// value returns the output at x, in storage the next call reuses.
	value(x []float64) []float64
	// traced returns the output at x and the (sub)gradient map v -> J^T v
	// there (see problem.gradient for the quantisers).
	traced(x []float64) ([]float64, func(v []float64) []float64)
	// quantisers reports whether the network has quantisers, and returns
	// the quantiser its input goes through first, if there is one (nil
	// otherwise): the grid the annealing phase walks.
	quantisers() (bool, *nn.Quantiser)
}

// chainModel is a chain with its scratch buffers: the outputs of every
// layer.
type chainModel struct {
	f   *nn.Network
	buf [][]float64
}

func (m *chainModel) value(x []float64) []float64 { return forwardInto(m.f, x, m.buf) }

func (m *chainModel) traced(x []float64) ([]float64, func([]float64) []float64) {
	var t trace
	y := forward(m.f, x, &t)
	return y, func(v []float64) []float64 { return backward(m.f, &t, v) }
}

func (m *chainModel) quantisers() (bool, *nn.Quantiser) { return m.f.Quantised(), m.f.Input }

// newProblem returns the problem of f1, f2 on in (with x2 in box2 for
// independent inputs), measured by q.
func newProblem(f1, f2 *nn.Network, in spec.Inputs, box2 spec.Box, q spec.Quantity) *problem {
	p := newModelProblem(&chainModel{f1, buffers(f1)}, &chainModel{f2, buffers(f2)}, in, box2, q)
	p.f1, p.f2 = f1, f2
	return p
}

// newModelProblem returns the problem of the models m1, m2 (see newProblem).
func newModelProblem(m1, m2 model, in spec.Inputs, box2 spec.Box, q spec.Quantity) *problem {
	p := &problem{m1: m1, m2: m2, in: in, box2: box2, q: q, n: in.Box.Dim()}
	p.lo, p.hi = in.Box.Lo, in.Box.Hi
	if in.Pairing == spec.Independent {
		p.lo = append(append([]float64(nil), in.Box.Lo...), box2.Lo...)
		p.hi = append(append([]float64(nil), in.Box.Hi...), box2.Hi...)
	}
	return p
}

// dim returns the dimension of the search box.
func (p *problem) dim() int { return len(p.lo) }

// inputs returns x1 and x2 for the point z.
func (p *problem) inputs(z []float64) (x1, x2 []float64) {
	if p.in.Pairing == spec.Independent {
		return z[:p.n], z[p.n:]
	}
	return z, p.in.X2(z)
}

// value returns e(z).
func (p *problem) value(z []float64) float64 {
	p.evals++
	x1, x2 := p.inputs(z)
	return p.q.Measure(p.m1.value(x1), p.m2.value(x2))
}

// buffers returns one slice per layer of f, of the layer's width.
func buffers(f *nn.Network) [][]float64 {
	b := make([][]float64, len(f.Layers))
	for k, l := range f.Layers {
		b[k] = make([]float64, l.Out())
	}
	return b
}

// forwardInto returns f(x) computed in the buffers buf (see buffers), with
// the same arithmetic as forward and nn.Network.Eval.
func forwardInto(f *nn.Network, x []float64, buf [][]float64) []float64 {
	h := quantiseInput(f, x)
	for k, l := range f.Layers {
		out := buf[k]
		l.AffineTo(out, h)
		for i, s := range out {
			out[i] = quantisedAct(l, i, s)
		}
		h = out
	}
	return h
}

// quantiseInput returns x through f's input quantiser (x itself if none).
func quantiseInput(f *nn.Network, x []float64) []float64 {
	if f.Input == nil {
		return x
	}
	q := make([]float64, len(x))
	for i, v := range x {
		q[i] = f.Input.Apply(i, v)
	}
	return q
}

// quantisedAct returns Post(Act(Pre(s))) for neuron i of layer l, as
// nn.Network.Eval computes it.
func quantisedAct(l nn.Layer, i int, s float64) float64 {
	if l.Pre != nil {
		s = l.Pre.Apply(i, s)
	}
	y := l.Act.Apply(s)
	if l.Post != nil {
		y = l.Post.Apply(i, y)
	}
	return y
}

// gradient returns e(z) and a (sub)gradient of e at z. Through the input
// quantiser and the quantisers of a quantised network, whose derivatives
// are 0 almost everywhere, it passes the gradient straight through (as if
// q(x) = x) except where a quantiser saturates (passes), which is a search
// heuristic.
func (p *problem) gradient(z []float64) (float64, []float64) {
	p.evals++
	x1, x2 := p.inputs(z)
	y1, back1 := p.m1.traced(x1)
	y2, back2 := p.m2.traced(x2)
	dr := make([]float64, len(y1))
	v := p.q.MeasureGrad(y1, y2, dr)
	g1 := back1(dr)
	for j := range dr {
		dr[j] = -dr[j]
	}
	g2 := back2(dr)
	if p.in.Pairing == spec.Independent {
		return v, append(g1, g2...)
	}
	for i := range g1 {
		g1[i] += g2[i]
	}
	return v, g1
}

// passes returns 0 when a quantiser of neuron i of layer l saturates at
// the pre-activation s (Pre at s, or Post at the activation's value), 1
// otherwise: the straight-through gradient passes the rounding but not
// the clamp, so that the search pushes a float network on past where its
// int8 copy has stopped.
func passes(l nn.Layer, i int, s float64) float64 {
	if l.Pre != nil {
		if saturates(l.Pre, i, s) {
			return 0
		}
		s = l.Pre.Apply(i, s)
	}
	if l.Post != nil && saturates(l.Post, i, l.Act.Apply(s)) {
		return 0
	}
	return 1
}

// saturates reports whether v lies outside the range of value i of q.
func saturates(q *nn.Quantiser, i int, v float64) bool {
	lo, hi := q.Range(i)
	return v < lo || v > hi
}

// trace records the pre-activations of every layer of one evaluation.
type trace struct {
	pre [][]float64
	// gate[k][i] is 0 where a quantiser of neuron i of layer k saturates
	// (its clamp is flat there, so the straight-through gradient stops)
	// and 1 elsewhere; gate[k] is nil for a layer without quantisers.
	gate [][]float64
}

// forward returns f(x), recording pre-activations in t when t is not nil.
func forward(f *nn.Network, x []float64, t *trace) []float64 {
	h := quantiseInput(f, x)
	for _, l := range f.Layers {
		out := make([]float64, l.Out())
		var pre, gate []float64
		if t != nil {
			pre = make([]float64, l.Out())
			if l.Pre != nil || l.Post != nil {
				gate = make([]float64, l.Out())
			}
		}
		forwardLayer(l, h, out, pre, gate)
		if t != nil {
			t.pre = append(t.pre, pre)
			t.gate = append(t.gate, gate)
		}
		h = out
	}
	return h
}

// forwardLayer sets out to layer l's outputs on its inputs h and, where
// pre and gate are not nil, records its pre-activations and gates (trace)
// in them: one layer of forward, for it and Trace.Reforward.
func forwardLayer(l nn.Layer, h, out, pre, gate []float64) {
	l.AffineTo(out, h)
	for i, s := range out {
		if pre != nil {
			pre[i] = s
			if l.Pre != nil {
				pre[i] = l.Pre.Apply(i, s)
			}
		}
		out[i] = quantisedAct(l, i, s)
		if gate != nil {
			gate[i] = passes(l, i, s)
		}
	}
}

// backward returns J^T v for the Jacobian J of f at the traced point.
func backward(f *nn.Network, t *trace, v []float64) []float64 {
	g := append([]float64(nil), v...)
	for k := len(f.Layers) - 1; k >= 0; k-- {
		l := f.Layers[k]
		for i := range g {
			g[i] *= slope(l.Act, t.pre[k][i])
			if gate := t.gate[k]; gate != nil {
				g[i] *= gate[i]
			}
		}
		next := make([]float64, l.In())
		l.MulTransVec(next, g)
		g = next
	}
	return g
}

// slope returns a derivative of a at s (the right one at kinks).
func slope(a nn.Activation, s float64) float64 {
	switch a.Kind {
	case nn.ReLU:
		if s >= 0 {
			return 1
		}
		return 0
	case nn.LeakyReLU:
		if s >= 0 {
			return 1
		}
		return a.Alpha
	case nn.Tanh:
		c := math.Cosh(s)
		return 1 / (c * c)
	case nn.Sigmoid:
		e := math.Exp(-math.Abs(s))
		return e / ((1 + e) * (1 + e))
	case nn.ELU:
		if s >= 0 {
			return 1
		}
		return a.Alpha * math.Exp(s)
	case nn.HardTanh:
		if s >= a.Lo && s < a.Hi {
			return 1
		}
		return 0
	}
	return 1
}
