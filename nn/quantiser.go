package nn

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrQuantiser reports an ill-formed quantiser: a scale that is not
// positive and finite, a zero point outside the integer range, an empty or
// inverted range, or scale and zero point vectors of different lengths.
var ErrQuantiser = errors.New("invalid quantiser")

// ErrQuantised reports a network with quantisers given to code that cannot
// handle them (the SDP, the fixed-point and float16 transforms, pruning,
// the NNet and JSON writers).
var ErrQuantised = errors.New("network has activation quantisers")

// Quantiser is the affine integer quantiser of ONNX's QuantizeLinear
// followed by DequantizeLinear with the same parameters (the "QDQ" pair of
// int8 models as PyTorch, onnxruntime and TensorRT ship them):
//
//	q(v) = s * (clamp(round_half_even(v / s) + z, Lo, Hi) - z)
//
// with scale s > 0 and integer zero point z, Lo <= z <= Hi (uint8: [0, 255],
// int8: [-128, 127]). Scale and Zero hold one value for the whole tensor or
// one per value (per channel); they have the same length.
//
// Equivalently, for any real v, q(v) = clamp(v + e, s (Lo - z), s (Hi - z))
// for some e with |e| <= s/2: rounding is a bounded perturbation and the
// range a saturation. Range returns the two ends.
type Quantiser struct {
	Scale  []float64
	Zero   []int64
	Lo, Hi int64
}

// Uint8 and Int8 are the integer ranges of ONNX's 8-bit types.
const (
	Uint8Lo, Uint8Hi = 0, 255
	Int8Lo, Int8Hi   = -128, 127
)

// Len returns the number of values the quantiser's parameters are given for
// (1 for a per-tensor quantiser).
func (q *Quantiser) Len() int { return len(q.Scale) }

// At returns the scale and zero point of value i.
func (q *Quantiser) At(i int) (s float64, z int64) {
	if len(q.Scale) == 1 {
		return q.Scale[0], q.Zero[0]
	}
	return q.Scale[i], q.Zero[i]
}

// Range returns the smallest and largest values q gives value i:
// s (Lo - z) and s (Hi - z), rounded as the dequantisation rounds them.
func (q *Quantiser) Range(i int) (lo, hi float64) {
	s, z := q.At(i)
	return float64(q.Lo-z) * s, float64(q.Hi-z) * s
}

// Validate checks the quantiser for n values (n = 0 skips the length check).
func (q *Quantiser) Validate(n int) error {
	if len(q.Scale) == 0 || len(q.Scale) != len(q.Zero) {
		return fmt.Errorf("%d scales and %d zero points: %w", len(q.Scale), len(q.Zero), ErrQuantiser)
	}
	if n > 0 && len(q.Scale) != 1 && len(q.Scale) != n {
		return fmt.Errorf("%d scales for %d values: %w", len(q.Scale), n, ErrQuantiser)
	}
	if q.Lo >= q.Hi {
		return fmt.Errorf("integer range [%d, %d] is empty or a point: %w", q.Lo, q.Hi, ErrQuantiser)
	}
	for i, s := range q.Scale {
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("scale %d is %v, want positive and finite: %w", i, s, ErrQuantiser)
		}
		if z := q.Zero[i]; z < q.Lo || z > q.Hi {
			return fmt.Errorf("zero point %d is %d, outside [%d, %d]: %w", i, z, q.Lo, q.Hi, ErrQuantiser)
		}
	}
	return nil
}

// Apply returns q(v) for value i in float64 arithmetic, as the ONNX
// reference computes it: v / s rounded half to even, the zero point added,
// clamped, and dequantised as (k - z) * s.
func (q *Quantiser) Apply(i int, v float64) float64 {
	s, z := q.At(i)
	k := math.RoundToEven(v/s) + float64(z)
	k = min(max(k, float64(q.Lo)), float64(q.Hi)) // NaN stays NaN
	return (k - float64(z)) * s
}

// Apply32 returns q(v) for value i in float32 arithmetic (the scale rounded
// to float32), as the ONNX reference computes it on float32 tensors.
func (q *Quantiser) Apply32(i int, v float32) float32 {
	s64, z := q.At(i)
	s := float32(s64)
	k := float32(math.RoundToEven(float64(v / s)))
	k = min(max(k+float32(z), float32(q.Lo)), float32(q.Hi))
	return float32(int64(k)-z) * s
}

// applyAll applies q, if not nil, to every value of h in place.
func (q *Quantiser) applyAll(h []float64) {
	if q == nil {
		return
	}
	for i, v := range h {
		h[i] = q.Apply(i, v)
	}
}

// clone returns a deep copy of q (nil for nil).
func (q *Quantiser) clone() *Quantiser {
	if q == nil {
		return nil
	}
	return &Quantiser{Scale: append([]float64(nil), q.Scale...), Zero: append([]int64(nil), q.Zero...), Lo: q.Lo, Hi: q.Hi}
}

// Equal reports whether q and r are the same quantiser (both nil counts).
func (q *Quantiser) Equal(r *Quantiser) bool {
	if q == nil || r == nil {
		return q == r
	}
	if q.Lo != r.Lo || q.Hi != r.Hi || len(q.Scale) != len(r.Scale) {
		return false
	}
	for i := range q.Scale {
		if q.Scale[i] != r.Scale[i] || q.Zero[i] != r.Zero[i] {
			return false
		}
	}
	return true
}

// Quantised reports whether n has any quantiser (on its input or on a
// layer).
func (n *Network) Quantised() bool {
	if n.Input != nil {
		return true
	}
	for _, l := range n.Layers {
		if l.Pre != nil || l.Post != nil {
			return true
		}
	}
	return false
}

// RequirePlain returns an error wrapping ErrQuantised, naming user (the
// code that cannot model quantisers), if n has quantisers.
func (n *Network) RequirePlain(user string) error {
	if n != nil && n.Quantised() {
		return fmt.Errorf("nn: quantised (QDQ int8) networks are not handled by %s: %w", user, ErrQuantised)
	}
	return nil
}

// validateQuantisers checks the quantisers of n against the widths they
// act on.
func (n *Network) validateQuantisers() error {
	if n.Input != nil {
		if err := n.Input.Validate(n.InputSize()); err != nil {
			return fmt.Errorf("nn: input quantiser: %w", err)
		}
	}
	for k, l := range n.Layers {
		for _, p := range []struct {
			q    *Quantiser
			name string
		}{{l.Pre, "pre-activation"}, {l.Post, "output"}} {
			if p.q == nil {
				continue
			}
			if err := p.q.Validate(l.Out()); err != nil {
				return fmt.Errorf("nn: layer %d %s quantiser: %w", k, p.name, err)
			}
		}
	}
	return nil
}

// IntParams records how an int8 model stores a layer's parameters:
//
//	W_ij = (K_ij - zW_i) sW_i,   B_i = (k_i - zB_i) sB_i
//
// for integers K in Weight's range and k in Bias's, with Weight's scale per
// tensor or per output row (per channel) and Bias (nil: float biases) per
// tensor or per output. It describes the layer's W and B, which evaluation
// and bound propagation use; the ONNX writer stores the integers.
type IntParams struct {
	Weight, Bias *Quantiser
}

// clone returns a deep copy of p (nil for nil).
func (p *IntParams) clone() *IntParams {
	if p == nil {
		return nil
	}
	return &IntParams{Weight: p.Weight.clone(), Bias: p.Bias.clone()}
}

// Equal reports whether p and r record the same scheme (both nil counts).
func (p *IntParams) Equal(r *IntParams) bool {
	if p == nil || r == nil {
		return p == r
	}
	return p.Weight.Equal(r.Weight) && p.Bias.Equal(r.Bias)
}

// String describes q: its integer type (or range), then the scale and zero
// point of a per-tensor quantiser, or the number of channels, as in
// "uint8 s=0.01446 z=158" or "int8 per-channel(16)".
func (q *Quantiser) String() string {
	if q == nil {
		return "none"
	}
	typ := fmt.Sprintf("int[%d,%d]", q.Lo, q.Hi)
	switch {
	case q.Lo == Uint8Lo && q.Hi == Uint8Hi:
		typ = "uint8"
	case q.Lo == Int8Lo && q.Hi == Int8Hi:
		typ = "int8"
	case q.Lo == math.MinInt32 && q.Hi == math.MaxInt32:
		typ = "int32"
	}
	if q.Len() > 1 {
		return fmt.Sprintf("%s per-channel(%d)", typ, q.Len())
	}
	return fmt.Sprintf("%s s=%.4g z=%d", typ, q.Scale[0], q.Zero[0])
}

// Scheme describes how layer l is quantised: its integer parameters and
// its pre-activation and output quantisers ("" for a plain layer), as in
// "w int8 per-channel(16), b int32; pre uint8 s=0.01446 z=158; post = pre".
func (l Layer) Scheme() string {
	var parts []string
	if l.Int != nil {
		b := "b float"
		if l.Int.Bias != nil {
			b = "b " + strings.SplitN(l.Int.Bias.String(), " ", 2)[0]
		}
		parts = append(parts, "w "+l.Int.Weight.String()+", "+b)
	}
	if l.Pre != nil {
		parts = append(parts, "pre "+l.Pre.String())
	}
	switch {
	case l.Post != nil && l.Post.Equal(l.Pre):
		parts = append(parts, "post = pre")
	case l.Post != nil:
		parts = append(parts, "post "+l.Post.String())
	}
	return strings.Join(parts, "; ")
}
