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
// not apply (g is not f, or f has activations other than ReLU and
// Identity).
func (s *relSearch) meanValueBounds(lo, hi []float64) ([]float64, error) {
	if s.r.Single() || s.f != s.g {
		return nil, nil
	}
	for _, l := range s.f.Layers {
		if l.Act.Kind != nn.ReLU && l.Act.Kind != nn.Identity {
			return nil, nil
		}
	}
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
	bo := bounds.DefaultOptions()
	bo.Method = bounds.MethodSymbolic
	net, err := bounds.Single(s.f, h, bo)
	if err != nil {
		return nil, err
	}
	jlo, jhi := jacobianEnclosure(s.f, net.Pre)
	out := make([]float64, len(s.j.atoms))
	for ai, a := range s.j.atoms {
		c, ok := differenceCoefs(a, s.f.OutputSize())
		if !ok {
			out[ai] = math.Inf(-1)
			continue
		}
		lb := a.C
		for i := range n {
			cl, ch := 0.0, 0.0
			for k, ck := range c {
				if ck == 0 {
					continue
				}
				cl = addDown(cl, minProduct(ck, ck, jlo[k][i], jhi[k][i]))
				ch = addUp(ch, maxProduct(ck, ck, jlo[k][i], jhi[k][i]))
			}
			lb = addDown(lb, minProduct(cl, ch, d[i].Lo, d[i].Hi))
		}
		out[ai] = lb
	}
	return out, nil
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

// mulUp is outward.MulUp with exact zeros.
func mulUp(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return outward.MulUp(a, b)
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

// addUp is outward.AddUp, exact when a term is zero.
func addUp(a, b float64) float64 {
	switch {
	case b == 0:
		return a
	case a == 0:
		return b
	}
	return outward.AddUp(a, b)
}

// maxProduct returns an upper bound of x y over the same boxes, rounded up.
func maxProduct(a, b, c, d float64) float64 {
	return max(mulUp(a, c), mulUp(a, d), mulUp(b, c), mulUp(b, d))
}

// jacobianEnclosure returns an enclosure [lo, hi] of the Jacobian of the
// dense ReLU/Identity chain f's outputs with respect to its inputs over
// the inputs whose pre-activations lie in pre, by forward-mode interval
// products rounded outwards: lo[k][i] <= d f_k / d x_i <= hi[k][i].
func jacobianEnclosure(f *nn.Network, pre [][]bounds.Interval) (lo, hi [][]float64) {
	n := f.InputSize()
	var blo, bhi [][]float64 // the Jacobian of the layer below's outputs
	for l, layer := range f.Layers {
		rows := layer.Out()
		clo, chi := make([][]float64, rows), make([][]float64, rows)
		for r := range rows {
			clo[r], chi[r] = make([]float64, n), make([]float64, n)
			for j := range layer.In() {
				v := layer.W.At(r, j)
				if v == 0 {
					continue
				}
				if l == 0 {
					clo[r][j], chi[r][j] = v, v
					continue
				}
				for i := range n {
					if blo[j][i] == 0 && bhi[j][i] == 0 {
						continue
					}
					clo[r][i] = addDown(clo[r][i], minProduct(v, v, blo[j][i], bhi[j][i]))
					chi[r][i] = addUp(chi[r][i], maxProduct(v, v, blo[j][i], bhi[j][i]))
				}
			}
			// the activation's slope: [0, 0], [1, 1] or [0, 1]
			if layer.Act.Kind == nn.ReLU {
				z := pre[l][r]
				switch {
				case z.Hi <= 0:
					clo[r], chi[r] = make([]float64, n), make([]float64, n)
				case z.Lo < 0:
					for i := range n {
						clo[r][i], chi[r][i] = min(clo[r][i], 0), max(chi[r][i], 0)
					}
				}
			}
		}
		blo, bhi = clo, chi
	}
	return blo, bhi
}
