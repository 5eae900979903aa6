package verify

import (
	"math"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// The mean-value bound. When g is f itself (VNN-LIB's equal-to) an atom
// of the form c . (y(x_g) - y(x_f)) + C is, along the segment from x_f to
// x_g (inside the hull H of the node's x_f and x_g ranges),
//
//	c . (f(x_g) - f(x_f)) = integral_0^1 c^T J(x_f + t d) d dt,   d = x_g - x_f,
//
// for the piecewise-linear f, with J the Jacobian wherever it exists
// (almost every t). Each entry of c^T J lies in the enclosure of c^T J
// over H (forward-mode interval products of the weights and the slopes of
// the activations, 0, 1 or [0, 1] for a ReLU, rounded outwards), so
//
//	atom >= C + sum_i min (c^T J)_i d_i   over the enclosures of (c^T J)_i and d_i.
//
// This proves monotonicity (d_0 >= 0, every other d_i = 0, (c^T J)_0 >=
// 0) exactly, where bounds on the two copies separately leave a margin
// of rounding around 0 that never closes a strict atom.

// meanValueBounds returns, per atom of the joint network, the mean-value
// lower bound of its left-hand side (constant included) on the node
// [lo, hi], or -Inf for atoms not of that form; nil when the bound does
// not apply (see meanValueApplies).
func (s *relSearch) meanValueBounds(lo, hi []float64) ([]float64, error) {
	if !s.meanValueApplies() {
		return nil, nil
	}
	h, d := s.segments(lo, hi)
	bo := bounds.DefaultOptions()
	bo.Method = bounds.MethodSymbolic
	net, err := bounds.Single(s.f, h, bo)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(s.j.atoms))
	for ai, a := range s.j.atoms {
		c, ok := differenceCoefs(a, s.f.OutputSize())
		if !ok {
			out[ai] = math.Inf(-1)
			continue
		}
		glo, ghi := outwardGradient(s.f, net.Pre, c)
		out[ai] = meanValueBound(a.C, glo, ghi, d)
	}
	return out, nil
}

// meanValueApplies reports whether g is f itself and f has only ReLU and
// Identity activations, so that the mean-value bound applies.
func (s *relSearch) meanValueApplies() bool {
	if s.r.Single() || s.f != s.g {
		return false
	}
	for _, l := range s.f.Layers {
		if l.Act.Kind != nn.ReLU && l.Act.Kind != nn.Identity {
			return false
		}
	}
	return true
}

// segments returns the hull h of the x_f and x_g ranges of the joint node
// [lo, hi], which holds the segment between every pair of the node, and
// the enclosures d of the differences x_g - x_f (rounded outwards).
func (s *relSearch) segments(lo, hi []float64) (spec.Box, []bounds.Interval) {
	n := s.j.nf
	h := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	d := make([]bounds.Interval, n)
	for i := range n {
		ul, uh := lo[i], hi[i]
		gl, gh := lo[n+i], hi[n+i] // x_g[i] = w_i
		if s.j.linked[i] >= 0 {
			gl, gh = outward.AddDown(ul, lo[n+i]), outward.AddUp(uh, hi[n+i])
			d[i] = bounds.Interval{Lo: lo[n+i], Hi: hi[n+i]}
		} else {
			d[i] = bounds.Interval{Lo: outward.SubDown(gl, uh), Hi: outward.SubUp(gh, ul)}
		}
		gl, gh = max(gl, s.r.BoxG.Lo[i]), min(gh, s.r.BoxG.Hi[i])
		h.Lo[i], h.Hi[i] = min(ul, gl), max(uh, gh)
	}
	return h, d
}

// meanValueBound returns C + min over g in [glo, ghi] and d of g . d,
// rounded down: a lower bound of the atom c . (f(x_g) - f(x_f)) + C when
// [glo, ghi] encloses c^T J over the segment's hull and d the difference.
func meanValueBound(C float64, glo, ghi []float64, d []bounds.Interval) float64 {
	lb := C
	for i, di := range d {
		lb = addDown(lb, minProduct(glo[i], ghi[i], di.Lo, di.Hi))
	}
	return lb
}

// differenceCoefs returns c with a = c . (y_g - y_f) + C, or ok false.
func differenceCoefs(a spec.OutputAtom, m int) ([]float64, bool) {
	c, cf := make([]float64, m), make([]float64, m)
	for _, t := range a.G {
		c[t.K] += t.Coef
	}
	for _, t := range a.F {
		cf[t.K] += t.Coef
	}
	for k := range c {
		if c[k] != -cf[k] {
			return nil, false
		}
	}
	return c, true
}

// minProduct returns a lower bound of x y over x in [a, b], y in [c, d],
// rounded down.
func minProduct(a, b, c, d float64) float64 {
	return min(mulDown(a, c), mulDown(a, d), mulDown(b, c), mulDown(b, d))
}

// mulDown is outward.MulDown with exact zeros: a product with a zero
// factor is 0, which outward.MulDown would lower by its tiny margin (and
// a margin of rounding around 0 never closes a strict atom).
func mulDown(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return outward.MulDown(a, b)
}

// addDown is outward.AddDown, exact when a term is zero.
func addDown(a, b float64) float64 {
	switch {
	case b == 0:
		return a
	case a == 0:
		return b
	}
	return outward.AddDown(a, b)
}

// outwardGradient returns an enclosure [lo, hi] of c^T J, the gradient
// of c . f(x) for the dense ReLU/Identity chain f, over the inputs whose
// pre-activations lie in pre, rounded outwards:
//
//	g_L = c,   g_{l-1} = W_l^T (s_l * g_l),
//
// with s_l the slopes of layer l's activation: 1 for Identity and for a
// ReLU whose pre-activation is >= 0, 0 where it is <= 0, and either where
// it straddles 0. Wherever J exists, lo[i] <= (c^T J)_i <= hi[i]; where a
// pre-activation is 0 along a segment its derivative along the segment is
// 0, so the slope chosen there does not matter to the mean-value bound.
//
// c^T J is multilinear in the straddling neurons' slopes s in [0, 1]
// (each appears once in every product of the chain), so its range over
// them is taken at the vertices s in {0, 1}: the pass enumerates the
// vertices of the straddling neurons layer by layer from the output down
// while at most maxGradientVertices passes run, and below that takes
// the slopes as intervals [0, 1]. Each pass carries a midpoint and a
// radius per neuron (float64 products, the radius raised by the dot
// products' rounding error, outward.DotErr), exact zeros kept exact.
// Starting from c keeps the output combination exact, which the forward
// product of the whole Jacobian loses. gradientEnclosure (smear.go) is the
// interval product without vertices or outward rounding, for the split
// heuristics.
func outwardGradient(f *nn.Network, pre [][]bounds.Interval, c []float64) (lo, hi []float64) {
	n := f.InputSize()
	lo, hi = make([]float64, n), make([]float64, n)
	for i := range lo {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
	}
	gradientVertices(f, pre, len(f.Layers)-1, append([]float64(nil), c...), make([]float64, len(c)), 1, lo, hi)
	return lo, hi
}

// maxGradientVertices bounds the passes of outwardGradient.
const maxGradientVertices = 256

// gradientVertices continues the backward pass of outwardGradient from
// the gradient mid +- rad of layer l's outputs, with passes the number of
// passes running, and widens [lo, hi] to the input gradients it reaches.
func gradientVertices(f *nn.Network, pre [][]bounds.Interval, l int, mid, rad []float64, passes int, lo, hi []float64) {
	if l < 0 {
		for i, m := range mid {
			gl, gh := m, m
			if rad[i] != 0 {
				gl, gh = outward.SubDown(m, rad[i]), outward.AddUp(m, rad[i])
			}
			lo[i], hi[i] = min(lo[i], gl), max(hi[i], gh)
		}
		return
	}
	layer := f.Layers[l]
	var open []int // straddling neurons with a nonzero gradient
	if layer.Act.Kind == nn.ReLU {
		for r, z := range pre[l] {
			switch {
			case z.Hi <= 0:
				mid[r], rad[r] = 0, 0
			case z.Lo < 0 && (mid[r] != 0 || rad[r] != 0):
				open = append(open, r)
			}
		}
	}
	if len(open) > 20 || passes<<len(open) > maxGradientVertices {
		for _, r := range open { // the slope as [0, 1]
			gl := min(outward.SubDown(mid[r], rad[r]), 0)
			gh := max(outward.AddUp(mid[r], rad[r]), 0)
			mid[r] = gl/2 + gh/2
			rad[r] = max(outward.SubUp(gh, mid[r]), outward.SubUp(mid[r], gl))
		}
		open = nil
	}
	keep := make([][2]float64, len(open))
	for k, r := range open {
		keep[k] = [2]float64{mid[r], rad[r]}
	}
	for v := range 1 << len(open) {
		for k, r := range open {
			if v>>k&1 == 0 {
				mid[r], rad[r] = 0, 0
			} else {
				mid[r], rad[r] = keep[k][0], keep[k][1]
			}
		}
		nmid, nrad := backwardLayer(layer, mid, rad)
		gradientVertices(f, pre, l-1, nmid, nrad, passes<<len(open), lo, hi)
	}
}

// backwardLayer returns W^T (mid +- rad) for layer's weights W as a
// midpoint and a radius that encloses the exact product.
func backwardLayer(layer nn.Layer, mid, rad []float64) (nmid, nrad []float64) {
	in := layer.In()
	nmid = make([]float64, in)
	abs, wrad := make([]float64, in), make([]float64, in)
	w := layer.W.RawMatrix()
	for r := range layer.Out() {
		m, rr := mid[r], rad[r]
		if m == 0 && rr == 0 {
			continue
		}
		am := math.Abs(m)
		for j, v := range w.Data[r*w.Stride : r*w.Stride+w.Cols] {
			nmid[j] += v * m
			av := math.Abs(v)
			abs[j] += av * am
			wrad[j] += av * rr
		}
	}
	nrad = make([]float64, in)
	for j := range in {
		if abs[j] != 0 || wrad[j] != 0 {
			nrad[j] = outward.UpBy(wrad[j], outward.DotErr(abs[j]+wrad[j], layer.Out()))
		}
	}
	return nmid, nrad
}
