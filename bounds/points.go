package bounds

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Points bounds one network at single inputs, many times: it validates
// and lowers the network once, then At costs one interval propagation of
// a point, which is as tight as any method there (the enclosures are the
// rounding of the evaluation, and both values of a quantiser whose
// argument may lie on either side of a rounding jump).
type Points struct {
	f *nn.Network
	m lowered
	// exact: every layer is dense with a ReLU or no activation, so At
	// may try the evaluation with an error radius (exactAt).
	exact bool
	// rowAbs[k][i] is sum_j |W_ij| of layer k, rounded up (exactAt).
	rowAbs [][]float64
}

// NewPoints returns the point evaluator of f with opts.RequantSlack (the
// other options do not apply to points).
func NewPoints(f *nn.Network, opts Options) (*Points, error) {
	if f == nil {
		return nil, fmt.Errorf("bounds: network is nil: %w", nn.ErrDimension)
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("bounds: network: %w", err)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	m, err := lowerSingle(f, opts.RequantSlack)
	if err != nil {
		return nil, err
	}
	p := &Points{f: f, m: m, exact: opts.RequantSlack == 0}
	for _, l := range f.Layers {
		if l.Conv != nil || (l.Act.Kind != nn.ReLU && l.Act.Kind != nn.Identity) {
			p.exact = false
		}
	}
	if p.exact {
		p.rowAbs = make([][]float64, len(f.Layers))
		for k, l := range f.Layers {
			raw := l.W.RawMatrix()
			p.rowAbs[k] = make([]float64, raw.Rows)
			for i := range raw.Rows {
				for _, w := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
					p.rowAbs[k][i] = outward.AddUp(p.rowAbs[k][i], math.Abs(w))
				}
			}
		}
	}
	return p, nil
}

// At returns enclosures of the network's outputs at x, which must have
// the network's input size (it panics otherwise).
func (p *Points) At(x []float64) []Interval {
	if len(x) != p.m.f.InputSize() {
		panic(fmt.Sprintf("bounds: Points.At: %d inputs, the network takes %d", len(x), p.m.f.InputSize()))
	}
	if p.exact {
		if out, ok := p.exactAt(x); ok {
			return out
		}
	}
	in := make([]Interval, len(x))
	for i, v := range x {
		in[i] = Point(v)
	}
	n := intervalNet(p.m, in)
	return n.Post[len(n.Post)-1]
}

// exactAt evaluates the network at x in float64 as nn.Network.Eval does,
// carrying for each value v a radius r with |v - v*| <= r for the value
// v* of exact arithmetic. A dot product of n terms adds (n+2) 2u times
// the sum of its terms' magnitudes (Higham's gamma, generously) plus the
// propagated radii; both sums are taken at most |b_i| + rowAbs_i max_j
// |h_j| and rowAbs_i max_j r_j (sum_j |W_ij| rounded up), so that the
// loop over the weights is the dot product alone (the radius, some 1e-13
// of the values, stays far below the quantisers' steps); ReLU keeps the
// radius (it is 1-Lipschitz). A
// quantiser maps [v - r, v + r], widened by the relative error of its
// division, to one integer code or ok is false (the caller then
// propagates intervals); its value (k - z) s then has radius 2u |value|
// (the product's rounding). The result encloses both Eval's value and the
// exact one; ok is false when a quantiser's code is not certain.
func (p *Points) exactAt(x []float64) (out []Interval, ok bool) {
	h := append([]float64(nil), x...)
	r := make([]float64, len(x))
	if q := p.f.Input; q != nil {
		for i := range h {
			if h[i], r[i], ok = quantiseRadius(q, i, h[i], r[i]); !ok {
				return nil, false
			}
		}
	}
	for k, l := range p.f.Layers {
		raw := l.W.RawMatrix()
		nh, nr := make([]float64, raw.Rows), make([]float64, raw.Rows)
		hMax, rMax := 0.0, 0.0
		for j := range h {
			hMax, rMax = max(hMax, math.Abs(h[j])), max(rMax, r[j])
		}
		for i := range raw.Rows {
			row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols][:len(h)]
			s := l.B[i]
			for j, w := range row {
				s += w * h[j]
			}
			abs := outward.AddUp(math.Abs(l.B[i]), outward.MulUp(p.rowAbs[k][i], hMax))
			prop := outward.MulUp(p.rowAbs[k][i], rMax)
			v, rad := s, (abs*float64(raw.Cols+2)*2*outward.Unit+prop)*(1+0x1p-20)+float64(raw.Cols+2)*outward.Tiny
			if l.Pre != nil {
				if v, rad, ok = quantiseRadius(l.Pre, i, v, rad); !ok {
					return nil, false
				}
			}
			v = l.Act.Apply(v)
			if l.Post != nil {
				if v, rad, ok = quantiseRadius(l.Post, i, v, rad); !ok {
					return nil, false
				}
			}
			if math.IsNaN(v) || math.IsInf(v, 0) || math.IsInf(rad, 0) {
				return nil, false
			}
			nh[i], nr[i] = v, rad
		}
		h, r = nh, nr
	}
	out = make([]Interval, len(h))
	for i, v := range h {
		out[i] = Interval{outward.SubDown(v, r[i]), outward.AddUp(v, r[i])}
	}
	return out, true
}

// quantiseRadius returns q's value i at v (as nn.Quantiser.Apply computes
// it) and its radius, if every value within r of v (and of the division's
// rounding) gets the same integer code; ok is false otherwise.
func quantiseRadius(q *nn.Quantiser, i int, v, r float64) (float64, float64, bool) {
	d := r + math.Abs(v)*0x1p-50 + outward.Tiny
	lo, hi := q.Apply(i, v-d), q.Apply(i, v+d)
	if lo != hi || math.IsNaN(lo) {
		return 0, 0, false
	}
	// Apply is monotone, so Apply(i, v) = lo too.
	return lo, math.Abs(lo)*2*outward.Unit + outward.Tiny, true
}
