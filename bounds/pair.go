package bounds

import (
	"context"
	"fmt"
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
	"gonum.org/v1/gonum/blas/blas64"
)

// PairBounds holds sound bounds for two networks f1, f2 on paired inputs
// (x1, x2) (see spec.Inputs).
//
// Net1 encloses f1 on the box and Net2 encloses f2 on the set of x2 (for
// spec.QuantisedInput, the quantised box). DiffIn[i] encloses x2_i - x1_i. For
// every layer index k below both depths at which the two networks have the
// same width,
//
//	DiffPre[k][i]  ⊇ {xi2^k_i - xi1^k_i},
//	DiffPost[k][i] ⊇ {phi2(xi2^k_i) - phi1(xi1^k_i)}
//
// over all paired inputs. DiffPre and DiffPost have one entry per layer of
// the shallower network; entry k is nil where the widths of layer k differ.
// Output[j] ⊇ {f2_j(x2) - f1_j(x1)}.
type PairBounds struct {
	Net1, Net2        *Net
	DiffIn            []Interval
	DiffPre, DiffPost [][]Interval
	Output            []Interval

	prop   *pairProp     // the propagation state, for Margin
	pieces []*PairBounds // the bounds of the pieces of a split box
	whole  *PairBounds   // and on the whole box
	packs  *chainPacks   // for the Pairs within these bounds (Prior keeps it)
	// goal holds the goal's margins as Pair checked them, back-substituted
	// without optimised slopes, for margins to reuse (nil: none).
	goal *checkedMargins
}

// checkedMargins are the enclosures ivs of the margins cs.
type checkedMargins struct {
	cs  [][]float64
	ivs []Interval
}

// Pair returns sound bounds for f1 and f2 on the input pairs in. The
// networks must take in.Box.Dim() inputs and have the same number of
// outputs; their hidden layers may differ. With opts.Split > 1 (and a
// pairing other than spec.Independent) the bounds are those of the union of
// the pieces of the box.
func Pair(f1, f2 *nn.Network, in spec.Inputs, opts Options) (*PairBounds, error) {
	return PairContext(context.Background(), f1, f2, in, opts)
}

// PairContext is Pair stopped by ctx: once ctx is done it returns ctx's
// error (wrapped) before the next layer of either network, or of a piece
// of a split box, is bounded.
func PairContext(ctx context.Context, f1, f2 *nn.Network, in spec.Inputs, opts Options) (*PairBounds, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := checkNetwork(f1, in.Box.Dim(), "network 1"); err != nil {
		return nil, err
	}
	if err := checkNetwork(f2, in.Box.Dim(), "network 2"); err != nil {
		return nil, err
	}
	if f1.OutputSize() != f2.OutputSize() {
		return nil, fmt.Errorf("bounds: network 1 has %d outputs, network 2 has %d: %w",
			f1.OutputSize(), f2.OutputSize(), nn.ErrDimension)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	m1, m2, err := lowerPair(f1, f2, opts.RequantSlack)
	if err != nil {
		return nil, err
	}
	if err := checkWithin(opts.Within, m1.f, m2.f); err != nil {
		return nil, err
	}
	if err := checkGoal(opts.Goal, f1.OutputSize(), max(len(m1.f.Layers), len(m2.f.Layers))); err != nil {
		return nil, err
	}
	for _, j := range opts.Outputs {
		if j < 0 || j >= f1.OutputSize() {
			return nil, fmt.Errorf("bounds: options: output %d of Outputs, want 0..%d: %w", j, f1.OutputSize()-1, ErrOptions)
		}
	}
	if opts.Split > 1 && in.Pairing != spec.Independent {
		opts.Goal = nil
		return pairSplit(ctx, m1, m2, in, opts)
	}
	return propagatePair(ctx, m1, m2, in, opts)
}

// inputBoxes returns the box of x1, the box of x2 and an enclosure of
// x2 - x1 for the pairing of in.
func inputBoxes(in spec.Inputs) (x1, x2, d []Interval) {
	x1 = boxIntervals(in.Box)
	d = make([]Interval, len(x1))
	switch in.Pairing {
	case spec.SameInput:
		return x1, x1, d
	case spec.Independent:
		for i, x := range x1 {
			d[i] = x.Sub(x)
		}
		return x1, x1, d
	}
	x2 = make([]Interval, len(x1))
	for i, x := range x1 {
		lo, _ := in.Quant.Quantise(x.Lo)
		hi, _ := in.Quant.Quantise(x.Hi)
		x2[i] = Interval{lo, hi}
		d[i] = quantError(in, x)
	}
	return x1, x2, d
}

// quantError returns an enclosure of {q(s) - s : s in x} for the input
// quantiser q of in. The quantiser is monotone, so if q(x.Lo) = q(x.Hi) it
// is constant on x; otherwise the rounding mode bounds the error of
// rounding,
//
//	trunc:   q(s) - s in (-2^-FB, 0] for s >= 0 and [0, 2^-FB) for s <= 0
//	floor:   q(s) - s in (-2^-FB, 0]
//	nearest: |q(s) - s| <= 2^-FB / 2
//
// and, where a saturating quantiser clamps s beyond its limit L to ±L, the
// error is ±L - s.
func quantError(in spec.Inputs, x Interval) Interval {
	ql, _ := in.Quant.Quantise(x.Lo)
	qh, _ := in.Quant.Quantise(x.Hi)
	if ql == qh {
		return Interval{outward.SubDown(ql, x.Hi), outward.SubUp(ql, x.Lo)}
	}
	step := in.Quant.Step()
	var e Interval
	switch in.Quant.Rounding {
	case quantise.Nearest:
		e = Interval{-step / 2, step / 2}
	case quantise.Floor:
		e = Interval{-step, 0}
	default:
		if x.Hi > 0 {
			e.Lo = -step
		}
		if x.Lo < 0 {
			e.Hi = step
		}
	}
	if lim := in.Quant.Limit(); in.Quant.Saturate {
		if x.Hi > lim {
			e = e.Hull(Interval{outward.SubDown(lim, x.Hi), 0})
		}
		if x.Lo < -lim {
			e = e.Hull(Interval{0, outward.SubUp(-lim, x.Lo)})
		}
	}
	return e
}

// tightenPre intersects pre2 with pre1 + d and pre1 with pre2 - d.
func tightenPre(pre1, pre2, d []Interval) {
	for i := range d {
		pre2[i] = pre2[i].Intersect(pre1[i].Add(d[i]))
		pre1[i] = pre1[i].Intersect(pre2[i].Sub(d[i]))
	}
}

// images returns the activation images of the intervals pre.
func images(a nn.Activation, pre []Interval) []Interval {
	out := make([]Interval, len(pre))
	for i, p := range pre {
		out[i] = actImage(a, p)
	}
	return out
}

// subAll returns the elementwise enclosures of a - b.
func subAll(a, b []Interval) []Interval {
	out := make([]Interval, len(a))
	for i := range a {
		out[i] = a[i].Sub(b[i])
	}
	return out
}

// intersectAll intersects a with b elementwise, in place.
func intersectAll(a, b []Interval) {
	for i := range a {
		a[i] = a[i].Intersect(b[i])
	}
}

// layerDiff holds the exact difference of two layers' parameters as a
// float64 value plus a radius: W2 - W1 in [DW - RW, DW + RW] elementwise (RW
// from an error-free transformation, nil when every difference is exact),
// and likewise for the biases.
type layerDiff struct {
	rows, cols int
	conv       *nn.Conv2D // the layers' geometry when structured (dW, rW kernels)
	dW, rW     []float64
	dB, rB     []float64
}

// newLayerDiff returns the parameter difference l2 - l1 (equal shapes); the
// noise radii r1, r2 of the layers (nil for none) go into the bias radius,
// as e2 - e1 lies in [-(r1 + r2), r1 + r2].
func newLayerDiff(l1, l2 nn.Layer, r1, r2 []float64) *layerDiff {
	w1, w2 := weightsOf(l1), weightsOf(l2)
	d := &layerDiff{rows: l1.Out(), cols: l1.In(), conv: l1.Conv, dW: make([]float64, len(w1)), dB: make([]float64, l1.Out())}
	for j, v := range w1 {
		s, e := twoDiff(w2[j], v)
		d.dW[j] = s
		if e != 0 {
			if d.rW == nil {
				d.rW = make([]float64, len(w1))
			}
			d.rW[j] = math.Abs(e)
		}
	}
	for i := range d.rows {
		s, e := twoDiff(l2.B[i], l1.B[i])
		d.dB[i] = s
		if e != 0 {
			if d.rB == nil {
				d.rB = make([]float64, d.rows)
			}
			d.rB[i] = math.Abs(e)
		}
		for _, r := range [][]float64{r1, r2} {
			if r == nil {
				continue
			}
			if d.rB == nil {
				d.rB = make([]float64, d.rows)
			}
			d.rB[i] = outward.AddUp(d.rB[i], r[i])
		}
	}
	return d
}

// weightsOf returns the weights of l: the entries of W, row-major, or the
// kernel of its convolution (then d.dW and d.rW are kernels).
func weightsOf(l nn.Layer) []float64 {
	if l.Conv != nil {
		return l.Conv.Kernel
	}
	raw := l.W.RawMatrix()
	if raw.Stride == raw.Cols {
		return raw.Data[:raw.Rows*raw.Cols]
	}
	w := make([]float64, 0, raw.Rows*raw.Cols)
	for i := range raw.Rows {
		w = append(w, raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols]...)
	}
	return w
}

// applyLayer returns apply for the weights of l, dense or structured.
func (d *layerDiff) applyLayer(l nn.Layer, dx, x []Interval) []Interval {
	if l.Conv != nil {
		return d.convApply(l.Conv, dx, x)
	}
	return d.apply(l.W.RawMatrix(), dx, x)
}

// allZero reports whether every interval of v is [0, 0].
func allZero(v []Interval) bool {
	for _, x := range v {
		if x.Lo != 0 || x.Hi != 0 {
			return false
		}
	}
	return true
}

// twoDiff returns s = fl(a - b) and the exact error e with a - b = s + e.
func twoDiff(a, b float64) (s, e float64) { return outward.TwoSum(a, -b) }

// apply returns an enclosure of W dx + (W2 - W1) x + (b2 - b1) per row.
func (d *layerDiff) apply(w blas64.General, dx, x []Interval) []Interval {
	out := make([]Interval, d.rows)
	zero := allZero(dx) // same inputs at layer 0: skip the W dx terms (they add 0)
	for i := range out {
		lo, hi := d.dB[i], d.dB[i]
		abs := math.Abs(d.dB[i])
		extra := 0.0
		if d.rB != nil {
			extra = d.rB[i]
		}
		dW := d.dW[i*d.cols : (i+1)*d.cols]
		for j, v := range dW {
			c, e := ordered(v*x[j].Lo, v*x[j].Hi)
			lo += c
			hi += e
			abs += max(-c, e)
		}
		if !zero {
			for j, v := range w.Data[i*w.Stride : i*w.Stride+d.cols] {
				a, b := ordered(v*dx[j].Lo, v*dx[j].Hi)
				lo += a
				hi += b
				abs += max(-a, b)
			}
		}
		if d.rW != nil {
			for j, r := range d.rW[i*d.cols : (i+1)*d.cols] {
				extra += r * x[j].Mag()
			}
		}
		m := extra + outward.DotErr(abs+extra, 3*d.cols)
		out[i] = Interval{outward.DownBy(lo, m), outward.UpBy(hi, m)}
	}
	return out
}
