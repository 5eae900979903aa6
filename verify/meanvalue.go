package verify

import (
	"context"
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
// over H (gradient.go: products of the weights and the slopes of the
// activations, 0, 1 or either for a ReLU, rounded outwards), so
//
//	atom >= C + sum_i min (c^T J)_i d_i   over the enclosures of (c^T J)_i and d_i.
//
// This proves monotonicity (d_0 >= 0, every other d_i = 0, (c^T J)_0 >=
// 0) exactly, where bounds on the two copies separately leave a margin
// of rounding around 0 that never closes a strict atom.

// meanValueBounds returns, per atom of the joint network, the mean-value
// lower bound of its left-hand side (constant included) on the node
// [lo, hi], or -Inf for atoms not of that form; nil when the bound does
// not apply (see meanValueApplies); ctx's error once ctx is done.
func (s *relSearch) meanValueBounds(ctx context.Context, lo, hi []float64) ([]float64, error) {
	if !s.meanValueApplies() {
		return nil, nil
	}
	h, d := s.segments(lo, hi)
	bo := bounds.DefaultOptions()
	bo.Method = bounds.MethodSymbolic
	net, err := bounds.SingleContext(ctx, s.f, h, bo)
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
		glo, ghi := outwardGradient(s.f, net.Pre, c, nonzero(d))
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

// nonzero reports, per interval of d, whether it holds a nonzero value.
func nonzero(d []bounds.Interval) []bool {
	nz := make([]bool, len(d))
	for i, di := range d {
		nz[i] = di.Lo != 0 || di.Hi != 0
	}
	return nz
}
