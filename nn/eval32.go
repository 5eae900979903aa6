package nn

import (
	"fmt"
	"math"
)

// EvalFloat32 returns n(x) computed in float32 arithmetic, as an ONNX
// runtime evaluates a float32 graph by the operators' reference semantics:
// the input, weights, biases and quantiser scales rounded to float32, each
// pre-activation the float32 sum of the products in order of the inputs
// plus the bias (Gemm's A B + C), activations and quantisers (Apply32) in
// float32. The result is widened to float64 exactly.
//
// For a QDQ int8 model read from ONNX this reproduces the reference
// float32 outputs: its weights and biases are the exact products of
// integers and float32 scales, whose float32 rounding is what
// DequantizeLinear computes in float32 (for integers below 2^24 in
// magnitude).
func (n *Network) EvalFloat32(x []float64) ([]float64, error) {
	if n.Structured() {
		return nil, fmt.Errorf("nn: float32 evaluation: %w", ErrStructured)
	}
	if len(x) != n.InputSize() {
		return nil, fmt.Errorf("nn: input has %d values, network takes %d: %w", len(x), n.InputSize(), ErrDimension)
	}
	h := make([]float32, len(x))
	for i, v := range x {
		h[i] = float32(v)
		if n.Input != nil {
			h[i] = n.Input.Apply32(i, h[i])
		}
	}
	for _, l := range n.Layers {
		h = l.apply32(h)
	}
	out := make([]float64, len(h))
	for i, v := range h {
		out[i] = float64(v)
	}
	return out, nil
}

// apply32 returns Post(Act(Pre(W h + B))) in float32 arithmetic.
func (l Layer) apply32(h []float32) []float32 {
	raw := l.W.RawMatrix()
	out := make([]float32, raw.Rows)
	for i := range out {
		var s float32
		for j, w := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			s += float32(float32(w) * h[j]) // the conversion forbids a fused multiply-add
		}
		s += float32(l.B[i])
		if l.Pre != nil {
			s = l.Pre.Apply32(i, s)
		}
		y := act32(l.Act, s)
		if l.Post != nil {
			y = l.Post.Apply32(i, y)
		}
		out[i] = y
	}
	return out
}

// act32 returns the activation of s in float32: exact for the piecewise
// linear activations, the float64 value rounded to float32 for the others.
func act32(a Activation, s float32) float32 {
	switch a.Kind {
	case Identity:
		return s
	case ReLU:
		return max(0, s)
	case LeakyReLU:
		if s >= 0 {
			return s
		}
		return float32(a.Alpha) * s
	case HardTanh:
		return min(max(s, float32(a.Lo)), float32(a.Hi))
	}
	v := a.Apply(float64(s))
	if math.IsNaN(v) {
		return float32(math.NaN())
	}
	return float32(v)
}
