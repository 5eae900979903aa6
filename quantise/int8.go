package quantise

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// Int8 models: affine integer quantisation as PyTorch's post-training
// static quantisation does it (eager mode, one QuantStub at the input):
//
//   - the input and every layer's pre-activation W x + b get a quantiser
//     (nn.Quantiser) calibrated on their range [lo, hi], widened to hold 0:
//     asymmetric, s = (hi - lo) / (2^bits - 1) and z = round(-lo / s) on
//     [0, 2^bits - 1] (uint8 for 8 bits), or symmetric, s = max(|lo|, |hi|)
//     / (2^(bits-1) - 1) and z = 0 on [-2^(bits-1), 2^(bits-1) - 1];
//     after a ReLU the layer's output is re-quantised with the same
//     parameters (exactly the identity, as PyTorch's export writes it);
//   - weights are symmetric integers of bits bits, W = K s_w with s_w =
//     max |w| / (2^(bits-1) - 1) per tensor or per output channel;
//   - biases are int32, b = k s_b with s_b = s_in s_w (float32), s_in the
//     scale of the layer's input.
//
// Every scale is a float32 value, so the model is written exactly in ONNX
// QDQ form (nn/onnx) when bits is 8.

// Int8Options says how Int8 quantises.
type Int8Options struct {
	// Bits is the width of the activations and weights, 2 to 8.
	Bits int
	// PerChannel gives each output channel (row of W) its own weight scale.
	PerChannel bool
	// Symmetric makes the activation quantisers symmetric (signed, zero
	// point 0) instead of asymmetric (unsigned with a zero point).
	Symmetric bool
	// WeightBits, when not nil, gives the weights of layer k
	// WeightBits[k] bits (2 to 8) instead of Bits, one entry per layer;
	// the activations keep Bits (a mixed "W4A8" copy, for example).
	WeightBits []int
}

// DefaultInt8Options returns 8 bits, per-tensor weights and asymmetric
// activations (PyTorch's x86 default apart from per-channel weights).
func DefaultInt8Options() Int8Options { return Int8Options{Bits: 8} }

// String describes the scheme, for example "int8: per-tensor weights,
// asymmetric activations".
func (o Int8Options) String() string {
	weights, acts := "per-tensor", "asymmetric"
	if o.PerChannel {
		weights = "per-channel"
	}
	if o.Symmetric {
		acts = "symmetric"
	}
	return fmt.Sprintf("int%d: %s weights, %s activations", o.Bits, weights, acts)
}

// Validate reports a width out of range.
func (o Int8Options) Validate() error {
	if o.Bits < 2 || o.Bits > 8 {
		return fmt.Errorf("quantise: Int8Options.Bits is %d, want 2 to 8: %w", o.Bits, ErrRange)
	}
	for k, b := range o.WeightBits {
		if b < 2 || b > 8 {
			return fmt.Errorf("quantise: Int8Options.WeightBits[%d] is %d, want 2 to 8: %w", k, b, ErrRange)
		}
	}
	return nil
}

// weightBits returns the width of layer k's weights.
func (o Int8Options) weightBits(k int) int {
	if o.WeightBits != nil {
		return o.WeightBits[k]
	}
	return o.Bits
}

// Ranges are the calibrated ranges of a network's values: Input of its
// inputs, Pre[k] of layer k's pre-activations W x + b (one range per
// tensor).
type Ranges struct {
	Input [2]float64
	Pre   [][2]float64
}

// ErrCalibration reports ranges that do not fit the network or are not
// finite.
var ErrCalibration = errors.New("invalid calibration ranges")

// SampleRanges returns the ranges of net's values on the inputs xs.
func SampleRanges(net *nn.Network, xs [][]float64) (Ranges, error) {
	if len(xs) == 0 {
		return Ranges{}, fmt.Errorf("quantise: no calibration inputs: %w", ErrCalibration)
	}
	r := Ranges{Input: [2]float64{math.Inf(1), math.Inf(-1)}, Pre: make([][2]float64, len(net.Layers))}
	for k := range r.Pre {
		r.Pre[k] = [2]float64{math.Inf(1), math.Inf(-1)}
	}
	widen := func(a *[2]float64, v float64) { a[0], a[1] = min(a[0], v), max(a[1], v) }
	for n, x := range xs {
		if len(x) != net.InputSize() {
			return Ranges{}, fmt.Errorf("quantise: calibration input %d has %d values, the network takes %d: %w",
				n, len(x), net.InputSize(), nn.ErrDimension)
		}
		h := x
		for _, v := range x {
			widen(&r.Input, v)
		}
		for k, l := range net.Layers {
			out := make([]float64, l.Out())
			l.AffineTo(out, h) // dense or structured, as Eval computes it
			for i, s := range out {
				widen(&r.Pre[k], s)
				out[i] = l.Act.Apply(s)
			}
			h = out
		}
	}
	return r, nil
}

// Int8 returns the int8 (or narrower) copy of the plain network net with
// activation quantisers calibrated on r (see above). net is not modified.
func Int8(net *nn.Network, r Ranges, opts Int8Options) (*nn.Network, error) {
	if err := net.Validate(); err != nil {
		return nil, fmt.Errorf("quantise: %w", err)
	}
	if err := net.RequirePlain("int8 quantisation (of an already quantised network)"); err != nil {
		return nil, fmt.Errorf("quantise: %w", err)
	}
	if net.Structured() {
		return nil, fmt.Errorf("quantise: int8: %w", nn.ErrStructured)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(r.Pre) != len(net.Layers) {
		return nil, fmt.Errorf("quantise: %d pre-activation ranges for %d layers: %w", len(r.Pre), len(net.Layers), ErrCalibration)
	}
	if opts.WeightBits != nil && len(opts.WeightBits) != len(net.Layers) {
		return nil, fmt.Errorf("quantise: %d weight widths for %d layers: %w", len(opts.WeightBits), len(net.Layers), nn.ErrDimension)
	}
	in, err := actQuantiser(r.Input, opts)
	if err != nil {
		return nil, fmt.Errorf("quantise: input: %w", err)
	}
	out := &nn.Network{Input: in, Layers: make([]nn.Layer, len(net.Layers))}
	sIn := in.Scale[0]
	for k, l := range net.Layers {
		pre, err := actQuantiser(r.Pre[k], opts)
		if err != nil {
			return nil, fmt.Errorf("quantise: layer %d: %w", k, err)
		}
		q, err := intLayer(l, sIn, opts.weightBits(k), opts.PerChannel)
		if err != nil {
			return nil, fmt.Errorf("quantise: layer %d: %w", k, err)
		}
		q.Pre = pre
		if l.Act.Kind == nn.ReLU {
			q.Post = pre
		}
		out.Layers[k] = q
		sIn = pre.Scale[0]
	}
	return out, nil
}

// actQuantiser returns the quantiser of a value with range rg.
func actQuantiser(rg [2]float64, o Int8Options) (*nn.Quantiser, error) {
	lo, hi := min(rg[0], 0), max(rg[1], 0)
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil, fmt.Errorf("range [%v, %v] is not finite: %w", rg[0], rg[1], ErrCalibration)
	}
	levels := int64(1)<<o.Bits - 1
	if o.Symmetric {
		half := levels / 2 // 127 for 8 bits
		s := scale32(max(-lo, hi) / float64(half))
		return &nn.Quantiser{Scale: []float64{s}, Zero: []int64{0}, Lo: -half - 1, Hi: half}, nil
	}
	s := scale32((hi - lo) / float64(levels))
	z := min(max(int64(math.RoundToEven(-lo/s)), 0), levels)
	return &nn.Quantiser{Scale: []float64{s}, Zero: []int64{z}, Lo: 0, Hi: levels}, nil
}

// scale32 returns v rounded to float32, or the smallest normal float32 when
// v is 0 or below it (a range of zero width).
func scale32(v float64) float64 {
	const tiny32 = 0x1p-126
	return float64(float32(max(v, tiny32)))
}

// intLayer returns l with integer weights (symmetric, bits bits, per
// row with perChannel, else per tensor) and int32 biases of scale sIn s_w.
// The weights' quantiser has int8's range whatever bits is, the integers
// lying in [-(2^(bits-1) - 1), 2^(bits-1) - 1] (so that an int4 layer is
// written in ONNX as INT8 values of that range).
func intLayer(l nn.Layer, sIn float64, bits int, perChannel bool) (nn.Layer, error) {
	rows, cols := l.W.Dims()
	half := int64(1)<<(bits-1) - 1
	sw := make([]float64, rows)
	for i := range rows {
		for _, w := range l.W.RawRowView(i) {
			sw[i] = max(sw[i], math.Abs(w))
		}
	}
	if !perChannel {
		m := 0.0
		for _, v := range sw {
			m = max(m, v)
		}
		sw = []float64{m}
	}
	for i := range sw {
		sw[i] = scale32(sw[i] / float64(half))
	}
	wq := &nn.Quantiser{Scale: sw, Zero: make([]int64, len(sw)), Lo: nn.Int8Lo, Hi: nn.Int8Hi}
	sb := make([]float64, len(sw))
	for i, s := range sw {
		sb[i] = float64(float32(sIn) * float32(s))
		if sb[i] == 0 {
			return nn.Layer{}, fmt.Errorf("bias scale %v x %v underflows float32: %w", sIn, s, ErrRange)
		}
	}
	bq := &nn.Quantiser{Scale: sb, Zero: make([]int64, len(sb)), Lo: math.MinInt32, Hi: math.MaxInt32}
	q := nn.Layer{W: l.W, B: make([]float64, rows), Act: l.Act, Int: &nn.IntParams{Weight: wq, Bias: bq}}
	q.W = dequantised(l.W, wq, half, cols)
	for i, b := range l.B {
		s, _ := bq.At(i)
		k := math.RoundToEven(b/s) + 0 // no -0
		if k < math.MinInt32 || k > math.MaxInt32 {
			return nn.Layer{}, fmt.Errorf("bias %d (%v) overflows int32 at scale %v: %w", i, b, s, ErrRange)
		}
		q.B[i] = k * s
	}
	return q, nil
}

// dequantised returns the weights w rounded to K s with K an integer in
// [-half, half], s the scale of the row in wq.
func dequantised(w *mat.Dense, wq *nn.Quantiser, half int64, cols int) *mat.Dense {
	rows, _ := w.Dims()
	out := mat.NewDense(rows, cols, nil)
	for i := range rows {
		s, _ := wq.At(i)
		for j, v := range w.RawRowView(i) {
			k := min(max(math.RoundToEven(v/s), float64(-half)), float64(half)) + 0 // no -0
			out.Set(i, j, k*s)
		}
	}
	return out
}
