package nn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// The network-building helpers that the format readers share: affine
// layers and the fusion of consecutive affine maps (clipping is in
// clip.go).

// AffineLayer returns the layer x -> W x + b with Identity activation. It does
// not copy w or b.
func AffineLayer(w *mat.Dense, b []float64) Layer {
	return Layer{W: w, B: b, Act: Activation{Kind: Identity}}
}

// ScaleShift returns the elementwise affine layer
//
//	y_i = scale_i x_i + shift_i,
//
// that is W = diag(scale), b = shift. It returns an error wrapping
// ErrDimension if the lengths differ or are zero.
func ScaleShift(scale, shift []float64) (Layer, error) {
	if len(scale) != len(shift) || len(scale) == 0 {
		return Layer{}, fmt.Errorf("nn: scale-shift with %d scales and %d shifts: %w", len(scale), len(shift), ErrDimension)
	}
	n := len(scale)
	w := mat.NewDense(n, n, nil)
	for i, s := range scale {
		w.Set(i, i, s)
	}
	return AffineLayer(w, append([]float64(nil), shift...)), nil
}

// Compose returns the single layer equal to second(first(x)) when first is
// affine (Identity activation):
//
//	W = W2 W1,   b = W2 b1 + b2,   act = act2.
//
// It returns an error wrapping ErrDimension if the layers do not chain or
// are malformed, and an error if first has a non-Identity activation.
func Compose(first, second Layer) (Layer, error) {
	if first.Act.Kind != Identity {
		return Layer{}, fmt.Errorf("nn: cannot fuse a %v layer into the next one", first.Act.Kind)
	}
	if first.Pre != nil || first.Post != nil {
		return Layer{}, fmt.Errorf("nn: cannot fuse a quantised layer into the next one: %w", ErrQuantised)
	}
	if first.Conv != nil || second.Conv != nil {
		return Layer{}, fmt.Errorf("nn: cannot fuse a convolution with another layer: %w", ErrStructured)
	}
	if err := checkShape(first); err != nil {
		return Layer{}, err
	}
	if err := checkShape(second); err != nil {
		return Layer{}, err
	}
	if second.In() != first.Out() {
		return Layer{}, fmt.Errorf("nn: cannot fuse a layer with %d outputs into one with %d inputs: %w",
			first.Out(), second.In(), ErrDimension)
	}
	var w mat.Dense
	w.Mul(second.W, first.W)
	b := make([]float64, second.Out())
	raw := second.W.RawMatrix()
	for i := range b {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		s := second.B[i]
		for j, v := range row {
			s += v * first.B[j]
		}
		b[i] = s
	}
	return Layer{W: &w, B: b, Act: second.Act, Pre: second.Pre, Post: second.Post}, nil
}

// FuseLayers returns layers with every affine layer (Identity activation)
// that has a successor composed into that successor (see Compose), so that
// no two affine maps follow each other. A trailing affine layer is kept.
// The input slice is not modified; unchanged layers are shared, not copied.
func FuseLayers(layers []Layer) ([]Layer, error) {
	out := make([]Layer, 0, len(layers))
	for k, l := range layers {
		if err := checkShape(l); err != nil {
			return nil, fmt.Errorf("nn: layer %d: %w", k, err)
		}
		if n := len(out); n > 0 && out[n-1].Act.Kind == Identity && out[n-1].Pre == nil && out[n-1].Post == nil &&
			out[n-1].Conv == nil && l.Conv == nil {
			fused, err := Compose(out[n-1], l)
			if err != nil {
				return nil, fmt.Errorf("nn: fusing layers %d and %d: %w", k-1, k, err)
			}
			out[n-1] = fused
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

// checkShape reports a layer without weights or with a bias of the wrong length.
func checkShape(l Layer) error {
	if err := l.validateLinear(); err != nil {
		return err
	}
	if len(l.B) != l.Out() {
		return fmt.Errorf("nn: %d biases for %d outputs: %w", len(l.B), l.Out(), ErrDimension)
	}
	return nil
}
