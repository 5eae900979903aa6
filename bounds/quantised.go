package bounds

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
	"gonum.org/v1/gonum/mat"
)

// Quantised networks (nn.Quantiser: the QDQ int8 models).
//
// A quantiser with scale s, zero point z and integer range [Lo, Hi] is,
// for every real v,
//
//	q(v) = clamp(v + e, a, b),   a = s (Lo - z),  b = s (Hi - z),  |e| <= s/2,
//
// since q(v) = clamp(s round(v/s), a, b) and |s round(v/s) - v| <= s/2. So
// a quantised network is enclosed by a plain one whose layers add to their
// pre-activations a bounded perturbation e (the noise: |e_i| <= r_i) and
// clamp, which bound propagation handles like a bias known only to lie in
// an interval (single.go affine, backsub.go affineLayer, pair.go layerDiff):
//
//   - a layer act(Pre(W x + b)) becomes act'(W x + b + e) with act' the
//     composition of act and the clamp (identity, ReLU and hard-tanh
//     compose into one hard-tanh);
//   - the input quantiser becomes a first layer clamp(x + e);
//   - an output quantiser Post equal to Pre after an identity or a ReLU is
//     exact identity (the values are already on its grid and in its range:
//     0 is on the grid since Lo <= z <= Hi) and is dropped; any other
//     becomes a layer clamp(y + e) of its own.
//
// When a pair is lowered together, a layer added to one network is added
// to the other as the identity, so that the two stay layer by layer
// comparable for the difference propagation. The radius is s/2 widened by
// 2^-30 s plus the requantisation slack (Options.RequantSlack steps), so
// that it also covers the float64 rounding of v/s in the reference
// evaluation.

// noiseMargin is the relative widening of the rounding radius s/2.
const noiseMargin = 0x1p-30

// lowered is a plain network with the noise radii of its layers (noise[k]
// nil for a layer without) and the quantised function each such layer
// encloses (stairs[k]).
type lowered struct {
	f      *nn.Network
	noise  [][]float64
	stairs []*staircase
	slack  float64 // the requantisation slack in steps
}

// staircase is the exact function of the neurons of a lowered layer with
// noise: v -> act(q(v)) for the pre-activation v = W x + b (without the
// noise). It is non-decreasing in v.
type staircase struct {
	q   *nn.Quantiser
	act nn.Activation
}

// layerNoise returns the noise radii of layer k (nil if none).
func (m lowered) layerNoise(k int) []float64 {
	if k < len(m.noise) {
		return m.noise[k]
	}
	return nil
}

// lowerPair lowers f1 and f2 together (see above). Plain networks are
// returned as they are.
func lowerPair(f1, f2 *nn.Network, slack float64) (lowered, lowered, error) {
	if !f1.Quantised() && !f2.Quantised() {
		return lowered{f: f1}, lowered{f: f2}, nil
	}
	aligned := len(f1.Layers) == len(f2.Layers)
	withIn := f1.Input != nil || f2.Input != nil
	var extra []bool
	if aligned {
		extra = make([]bool, len(f1.Layers))
		for k := range extra {
			extra[k] = !redundantPost(f1.Layers[k]) || !redundantPost(f2.Layers[k])
		}
	}
	m1, err := lower(f1, withIn && aligned, extra, slack)
	if err != nil {
		return lowered{}, lowered{}, fmt.Errorf("bounds: network 1: %w", err)
	}
	m2, err := lower(f2, withIn && aligned, extra, slack)
	if err != nil {
		return lowered{}, lowered{}, fmt.Errorf("bounds: network 2: %w", err)
	}
	return m1, m2, nil
}

// lowerSingle lowers one network.
func lowerSingle(f *nn.Network, slack float64) (lowered, error) {
	if !f.Quantised() {
		return lowered{f: f}, nil
	}
	m, err := lower(f, false, nil, slack)
	if err != nil {
		return lowered{}, fmt.Errorf("bounds: %w", err)
	}
	return m, nil
}

// redundantPost reports whether layer l's output quantiser is absent or the
// identity on the layer's values.
func redundantPost(l nn.Layer) bool {
	if l.Post == nil {
		return true
	}
	return l.Pre != nil && l.Post.Equal(l.Pre) && (l.Act.Kind == nn.Identity || l.Act.Kind == nn.ReLU)
}

// lower returns the plain network enclosing f with its noise. With input,
// the first layer is the input quantiser (the identity if f has none);
// extra[k] adds a layer after layer k (the output quantiser, or the
// identity).
func lower(f *nn.Network, input bool, extra []bool, slack float64) (lowered, error) {
	m := lowered{slack: slack}
	var st *staircase
	add := func(l nn.Layer, r []float64) {
		m.f = &nn.Network{Layers: append(m.f.Layers, l)}
		m.noise = append(m.noise, r)
		m.stairs = append(m.stairs, st)
		st = nil
	}
	m.f = &nn.Network{}
	if input || f.Input != nil {
		l, r, err := quantLayer(f.Input, f.InputSize(), slack)
		if err != nil {
			return lowered{}, fmt.Errorf("input quantiser: %w", err)
		}
		if f.Input != nil {
			st = &staircase{q: f.Input, act: nn.Activation{Kind: nn.Identity}}
		}
		add(l, r)
	}
	for k, l := range f.Layers {
		act, r := l.Act, []float64(nil)
		if l.Pre != nil {
			var err error
			if act, err = clampAct(l.Pre, l.Act); err != nil {
				return lowered{}, fmt.Errorf("layer %d: %w", k, err)
			}
			r = radii(l.Pre, l.Out(), slack)
			st = &staircase{q: l.Pre, act: l.Act}
		}
		add(nn.Layer{W: l.W, Conv: l.Conv, B: l.B, Act: act}, r)
		post := l.Post
		if redundantPost(l) {
			post = nil
		}
		if post != nil || (k < len(extra) && extra[k]) {
			pl, pr, err := quantLayer(post, l.Out(), slack)
			if err != nil {
				return lowered{}, fmt.Errorf("layer %d output quantiser: %w", k, err)
			}
			if post != nil {
				st = &staircase{q: post, act: nn.Activation{Kind: nn.Identity}}
			}
			add(pl, pr)
		}
	}
	return m, nil
}

// quantLayer returns the identity layer of width n followed by the clamp
// of q, with q's noise (the plain identity for q nil).
func quantLayer(q *nn.Quantiser, n int, slack float64) (nn.Layer, []float64, error) {
	w := mat.NewDense(n, n, nil)
	for i := range n {
		w.Set(i, i, 1)
	}
	l := nn.Layer{W: w, B: make([]float64, n), Act: nn.Activation{Kind: nn.Identity}}
	if q == nil {
		return l, nil, nil
	}
	var err error
	if l.Act, err = clampAct(q, l.Act); err != nil {
		return nn.Layer{}, nil, err
	}
	return l, radii(q, n, slack), nil
}

// clampAct returns the activation act(clamp(., a, b)) for the range [a, b]
// of the per-tensor quantiser q.
func clampAct(q *nn.Quantiser, act nn.Activation) (nn.Activation, error) {
	if q.Len() != 1 {
		return nn.Activation{}, fmt.Errorf("a per-channel activation quantiser is not modelled: %w", nn.ErrQuantised)
	}
	a, b := q.Range(0)
	switch act.Kind {
	case nn.Identity:
	case nn.ReLU:
		a, b = max(a, 0), max(b, 0)
	case nn.HardTanh:
		a, b = min(max(a, act.Lo), act.Hi), max(min(b, act.Hi), act.Lo)
	default:
		return nn.Activation{}, fmt.Errorf("a quantiser before a %v activation is not modelled: %w", act.Kind, nn.ErrQuantised)
	}
	return nn.Activation{Kind: nn.HardTanh, Lo: a, Hi: b}, nil
}

// radii returns the noise radius of each of n values of q: (1/2 + slack) s,
// widened by noiseMargin s.
func radii(q *nn.Quantiser, n int, slack float64) []float64 {
	r := make([]float64, n)
	for i := range r {
		s, _ := q.At(i)
		r[i] = outward.MulUp(s, 0.5+slack+noiseMargin)
	}
	return r
}

// tightenPost intersects the output bounds post of layer k with the image
// of its staircase: pre encloses v + e for |e| <= r, so v lies in [pre.Lo +
// r, pre.Hi - r], and act(q(v)) in act of q's exact image there
// (quantRange) as act(q(.)) is non-decreasing. On a small enough piece of the input this makes a
// quantised neuron constant. The ends are moved out by noiseMargin s, as
// the noise radius is, and by the slack (a kernel that rounds up to K
// steps away gives a value between q(v - K s) and q(v + K s)).
func (m lowered) tightenPost(k int, pre, post []Interval) {
	if k >= len(m.stairs) || m.stairs[k] == nil {
		return
	}
	st := m.stairs[k]
	for i := range post {
		lo, hi, ok := m.valueRange(k, i, pre[i])
		if !ok {
			continue
		}
		img, _, ok := quantRange(st.q, i, Interval{lo, hi})
		if !ok {
			continue
		}
		img = Interval{st.act.Apply(img.Lo), st.act.Apply(img.Hi)}
		if img.Lo <= post[i].Hi && post[i].Lo <= img.Hi { // disjoint only through rounding: keep post
			post[i] = post[i].Intersect(img)
		}
	}
}

// valueRange returns the ends lo <= hi between which the quantiser of
// neuron i of layer k rounds: pre encloses v + e for every |e| <= r, so v
// lies in [pre.Lo + r, pre.Hi - r]; the ends are moved out by the slack
// (a kernel that rounds up to K steps away rounds a value between v - K s
// and v + K s) and by 2 noiseMargin s. ok is false if they cross (pre is
// narrower than 2 r through rounding).
func (m lowered) valueRange(k, i int, pre Interval) (lo, hi float64, ok bool) {
	s, _ := m.stairs[k].q.At(i)
	shrink := outward.SubDown(m.noise[k][i], outward.MulUp(s, m.slack+2*noiseMargin))
	lo, hi = outward.AddDown(pre.Lo, shrink), outward.SubUp(pre.Hi, shrink)
	return lo, hi, lo <= hi
}

// tightenGrid intersects the pre-activation bounds pre of layer k with the
// values v + e takes for the rounding noise e the quantiser actually adds.
// The quantiser's output is clamp(s j, a, b) for an integer j (the code
// before the clamp) between round(lo / s) and round(hi / s) (valueRange:
// lo <= v <= hi), and s j lies within r of v: so s j is a value of v + e,
// |e| <= r, at which the lowered layer gives exactly the quantiser's
// output. Bound propagation may take the noise to be that e: after
// tightenGrid, pre encloses s j (no longer every v + e), the relaxations
// built on it hold there, and the noise substituted below, bounded by r,
// includes it. Each end of pre moves in by up to s / 2; a neuron whose v
// stays above a - s / 2 is no longer clamped (it was, at v + e < a).
//
// valueRange and tightenPost stay sound on such bounds (here, or in a
// child's Options.Within): from s j >= pre.Lo, j >= ceil(pre.Lo / s),
// which is at least round(lo / s) for lo = pre.Lo + s / 2 - noiseMargin s;
// likewise at the upper end.
func (m lowered) tightenGrid(k int, pre []Interval) {
	if k >= len(m.stairs) || m.stairs[k] == nil {
		return
	}
	q := m.stairs[k].q
	for i := range pre {
		lo, hi, ok := m.valueRange(k, i, pre[i])
		if !ok {
			continue
		}
		s, _ := q.At(i)
		g := Interval{outward.MulDown(math.RoundToEven(lo/s), s), outward.MulUp(math.RoundToEven(hi/s), s)}
		if g.Lo <= pre[i].Hi && pre[i].Lo <= g.Hi { // disjoint only through rounding: keep pre
			pre[i] = pre[i].Intersect(g)
		}
	}
}

// Calibrate returns the ranges of f's input and pre-activations on box by
// bound propagation (Single with opts): the calibration of an int8 copy
// (quantise.Int8) that no input of the box saturates.
func Calibrate(f *nn.Network, box spec.Box, opts Options) (quantise.Ranges, error) {
	net, err := Single(f, box, opts)
	if err != nil {
		return quantise.Ranges{}, err
	}
	r := quantise.Ranges{Input: [2]float64{math.Inf(1), math.Inf(-1)}, Pre: make([][2]float64, len(net.Pre))}
	for _, x := range net.In {
		r.Input = [2]float64{min(r.Input[0], x.Lo), max(r.Input[1], x.Hi)}
	}
	for k, pre := range net.Pre {
		r.Pre[k] = [2]float64{math.Inf(1), math.Inf(-1)}
		for _, x := range pre {
			r.Pre[k] = [2]float64{min(r.Pre[k][0], x.Lo), max(r.Pre[k][1], x.Hi)}
		}
	}
	return r, nil
}
