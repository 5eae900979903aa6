package verify

import (
	"math"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"gonum.org/v1/gonum/blas/blas64"
)

// The gradient enclosure of the mean-value bound. For the dense
// ReLU/Identity chain f with weights W_l and activation slopes S_l
// (diagonal: 1 for Identity and for a ReLU whose pre-activation is >= 0,
// 0 where it is <= 0, either where it straddles 0),
//
//	c^T J e_i = c^T S_{L-1} W_{L-1} ... S_1 W_1 S_0 W_0 e_i,
//
// which is multilinear in the straddling neurons' slopes (each appears
// once in every product), so its range over them is taken at the vertices
// s in {0, 1}. The enclosure meets in the middle: at the layer m with the
// most straddling neurons it splits the product into
//
//	c^T J e_i = u^T S_m v,   u^T = c^T S_{L-1} W_{L-1} ... S_{m+1} W_{m+1},
//	                         v   = W_m S_{m-1} W_{m-1} ... S_0 W_0 e_i,
//
// enumerates the vertices of the slopes above m backwards from c (the
// vectors u) and those below m forwards from e_i (the vectors v), and takes
// S_m in closed form per pair, the sum being separable in its slopes:
//
//	min over S_m of u^T S_m v = sum over active r of u_r v_r
//	                          + sum over straddling r of min(0, u_r v_r),
//
// and likewise the maximum. k straddling neurons then cost 2^(k - k_m)
// dot products instead of 2^k backward passes. Where the pairs would
// exceed maxGradientPairs, the layers nearest m take their slopes as the
// interval [0, 1] instead (an enclosure still, looser). Every vector
// carries a midpoint and a radius per neuron (float64 products, the radius
// raised by the dot products' rounding error, outward.DotErr), and exact
// zeros stay exact: where every path to x_i is cut the enclosure is 0,
// which closes a strict atom. gradientEnclosure (bounds/smear) is the
// interval product without vertices or outward rounding, for the split
// heuristics.

// maxGradientPairs and maxGradientSide bound the pairs of vectors and the
// vectors of one side of outwardGradient, as powers of 2.
const (
	maxGradientPairs = 14
	maxGradientSide  = 10
)

// gradVec is an enclosure mid +- rad of a vector, rad >= 0.
type gradVec struct{ mid, rad []float64 }

// gradPlan is how outwardGradient enumerates the slopes of f.
type gradPlan struct {
	f   *nn.Network
	pre [][]bounds.Interval
	m   int    // the meeting layer
	enu []bool // per layer: the slopes' vertices (true) or [0, 1]
}

// outwardGradient returns an enclosure [lo, hi] of c^T J, the gradient of
// c . f(x) for the dense ReLU/Identity chain f, over the inputs whose
// pre-activations lie in pre, rounded outwards (see the comment at the top
// of the file): wherever J exists, lo[i] <= (c^T J)_i <= hi[i], for the
// coordinates i with need[i] (every one when need is nil); the others are
// [-Inf, +Inf]. Where a pre-activation is 0 along a segment its
// derivative along the segment is 0, so the slope chosen there does not
// matter to the mean-value bound.
func outwardGradient(f *nn.Network, pre [][]bounds.Interval, c []float64, need []bool) (lo, hi []float64) {
	n := f.InputSize()
	lo, hi = make([]float64, n), make([]float64, n)
	p := newGradPlan(f, pre)
	var tops []gradVec
	p.top(len(f.Layers)-1, gradVec{append([]float64(nil), c...), make([]float64, len(c))}, &tops)
	w := f.Layers[0].W
	for i := range n {
		lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		if need != nil && !need[i] {
			continue
		}
		v := gradVec{make([]float64, w.RawMatrix().Rows), make([]float64, w.RawMatrix().Rows)}
		for r := range v.mid {
			v.mid[r] = w.At(r, i)
		}
		var bots []gradVec
		p.bottom(0, v, &bots)
		lo[i], hi[i] = p.meet(tops, bots)
	}
	return lo, hi
}

// newGradPlan returns the plan of outwardGradient on f with
// pre-activation bounds pre: the meeting layer is the one with the most
// straddling neurons, and layers are enumerated from both ends of the
// chain inwards while the vectors stay within the limits.
func newGradPlan(f *nn.Network, pre [][]bounds.Interval) *gradPlan {
	nl := len(f.Layers)
	k := make([]int, nl)
	for l, layer := range f.Layers {
		if layer.Act.Kind == nn.ReLU {
			for _, z := range pre[l] {
				if z.Lo < 0 && z.Hi > 0 {
					k[l]++
				}
			}
		}
	}
	p := &gradPlan{f: f, pre: pre, enu: make([]bool, nl)}
	for l := range k {
		if k[l] > k[p.m] {
			p.m = l
		}
	}
	t, b := nl-1, 0
	logT, logB := 0, 0
	for t > p.m || b < p.m {
		top := t > p.m && (b >= p.m || logT <= logB)
		l := b
		if top {
			l = t
		}
		lt, lb := logT, logB
		if top {
			lt += k[l]
			t--
		} else {
			lb += k[l]
			b++
		}
		if lt+lb <= maxGradientPairs && max(lt, lb) <= maxGradientSide {
			p.enu[l], logT, logB = true, lt, lb
		}
	}
	return p
}

// top appends to out the vectors u at the output of layer m, continuing
// the backward pass from g at the output of layer l.
func (p *gradPlan) top(l int, g gradVec, out *[]gradVec) {
	if l == p.m {
		*out = append(*out, g)
		return
	}
	layer := p.f.Layers[l]
	p.slopes(l, g, func(h gradVec) { p.top(l-1, backwardLayer(layer, h), out) })
}

// bottom appends to out the vectors v at layer m's pre-activation,
// continuing the forward pass from v at layer l's pre-activation.
func (p *gradPlan) bottom(l int, v gradVec, out *[]gradVec) {
	if l == p.m {
		*out = append(*out, v)
		return
	}
	layer := p.f.Layers[l+1]
	p.slopes(l, v, func(h gradVec) { p.bottom(l+1, forwardLayer(layer, h), out) })
}

// slopes multiplies g by layer l's slopes, in place, and calls visit with
// each vertex of the straddling neurons' slopes (with one product whose
// straddling slopes are [0, 1] when the plan does not enumerate l); visit
// must not keep its argument. Straddling neurons with a zero entry do not
// branch.
func (p *gradPlan) slopes(l int, g gradVec, visit func(gradVec)) {
	if p.f.Layers[l].Act.Kind != nn.ReLU {
		visit(g)
		return
	}
	var open []int
	for r, z := range p.pre[l] {
		switch {
		case z.Hi <= 0:
			g.mid[r], g.rad[r] = 0, 0
		case z.Lo < 0 && (g.mid[r] != 0 || g.rad[r] != 0):
			open = append(open, r)
		}
	}
	if !p.enu[l] {
		for _, r := range open { // the slope as [0, 1]
			gl := min(outward.SubDown(g.mid[r], g.rad[r]), 0)
			gh := max(outward.AddUp(g.mid[r], g.rad[r]), 0)
			g.mid[r] = gl/2 + gh/2
			g.rad[r] = max(outward.SubUp(gh, g.mid[r]), outward.SubUp(g.mid[r], gl))
		}
		open = nil
	}
	keep := make([][2]float64, len(open))
	for k, r := range open {
		keep[k] = [2]float64{g.mid[r], g.rad[r]}
	}
	for v := range 1 << len(open) {
		for k, r := range open {
			if v>>k&1 == 0 {
				g.mid[r], g.rad[r] = 0, 0
			} else {
				g.mid[r], g.rad[r] = keep[k][0], keep[k][1]
			}
		}
		visit(g)
	}
}

// meet returns the range of u^T S_m v over the pairs of tops and bots and
// the vertices of layer m's slopes, rounded outwards.
func (p *gradPlan) meet(tops, bots []gradVec) (lo, hi float64) {
	const (
		inactive = iota
		active
		straddling
	)
	pre := p.pre[p.m]
	relu := p.f.Layers[p.m].Act.Kind == nn.ReLU
	cls := make([]int8, len(tops[0].mid))
	for r := range cls {
		switch {
		case !relu || pre[r].Lo >= 0:
			cls[r] = active
		case pre[r].Hi > 0:
			cls[r] = straddling
		}
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, u := range tops {
		for _, v := range bots {
			var slo, shi, abs, e float64
			nonzero := false
			for r, cl := range cls {
				um, ur, vm, vr := u.mid[r], u.rad[r], v.mid[r], v.rad[r]
				if cl == inactive || (um == 0 && ur == 0) || (vm == 0 && vr == 0) {
					continue
				}
				nonzero = true
				t := um * vm
				abs += math.Abs(t)
				e += math.Abs(um)*vr + ur*(math.Abs(vm)+vr)
				if cl == active {
					slo, shi = slo+t, shi+t
				} else {
					slo, shi = slo+min(t, 0), shi+max(t, 0)
				}
			}
			if !nonzero {
				lo, hi = min(lo, 0), max(hi, 0)
				continue
			}
			err := outward.UpBy(e, outward.DotErr(abs+e, 4*len(cls)))
			lo, hi = min(lo, outward.DownBy(slo, err)), max(hi, outward.UpBy(shi, err))
		}
	}
	return lo, hi
}

// backwardLayer returns W^T (g.mid +- g.rad) for layer's weights W as a
// midpoint and a radius that encloses the exact product.
func backwardLayer(layer nn.Layer, g gradVec) gradVec {
	in := layer.In()
	nmid := make([]float64, in)
	abs, wrad := make([]float64, in), make([]float64, in)
	w := layer.W.RawMatrix()
	for r := range layer.Out() {
		m, rr := g.mid[r], g.rad[r]
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
	nrad := make([]float64, in)
	for j := range in {
		if abs[j] != 0 || wrad[j] != 0 || backwardHit(w, g, j) {
			nrad[j] = outward.UpBy(wrad[j], outward.DotErr(abs[j]+wrad[j], layer.Out()))
		}
	}
	return gradVec{nmid, nrad}
}

// backwardHit reports whether entry j of W^T g has a product of nonzero
// factors (whose sum is 0 in float64 only by underflow, not exactly).
func backwardHit(w blas64.General, g gradVec, j int) bool {
	for r := range w.Rows {
		if w.Data[r*w.Stride+j] != 0 && (g.mid[r] != 0 || g.rad[r] != 0) {
			return true
		}
	}
	return false
}

// forwardLayer returns W (v.mid +- v.rad) for layer's weights W as a
// midpoint and a radius that encloses the exact product.
func forwardLayer(layer nn.Layer, v gradVec) gradVec {
	out := layer.Out()
	nmid, nrad := make([]float64, out), make([]float64, out)
	w := layer.W.RawMatrix()
	for r := range out {
		var m, abs, wrad float64
		hit := false
		for j, x := range w.Data[r*w.Stride : r*w.Stride+w.Cols] {
			vm, vr := v.mid[j], v.rad[j]
			if x == 0 || (vm == 0 && vr == 0) {
				continue
			}
			hit = true
			m += x * vm
			ax := math.Abs(x)
			abs += ax * math.Abs(vm)
			wrad += ax * vr
		}
		nmid[r] = m
		if hit {
			nrad[r] = outward.UpBy(wrad, outward.DotErr(abs+wrad, layer.In()))
		}
	}
	return gradVec{nmid, nrad}
}
