package nn

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// This file holds the network-building helpers that the format readers share:
// affine layers, fusion of consecutive affine maps, and elementwise clipping
// written exactly with the activations of this package.

// ErrBounds reports clipping bounds that are NaN or inverted (lo > hi).
var ErrBounds = errors.New("invalid clipping bounds")

// Affine returns the layer x -> W x + b with Identity activation. It does
// not copy w or b.
func Affine(w *mat.Dense, b []float64) Layer {
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
	return Affine(w, append([]float64(nil), shift...)), nil
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
	return Layer{W: &w, B: b, Act: second.Act}, nil
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
		if n := len(out); n > 0 && out[n-1].Act.Kind == Identity {
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

// Simplify returns a network equal to n as a function, with consecutive
// affine maps fused (see FuseLayers). n is not modified.
func Simplify(n *Network) (*Network, error) {
	if n == nil || len(n.Layers) == 0 {
		return nil, fmt.Errorf("nn: network has no layers: %w", ErrDimension)
	}
	layers, err := FuseLayers(n.Layers)
	if err != nil {
		return nil, err
	}
	return &Network{Layers: layers}, nil
}

// checkShape reports a layer without weights or with a bias of the wrong length.
func checkShape(l Layer) error {
	if l.W == nil {
		return fmt.Errorf("nn: layer has no weight matrix: %w", ErrDimension)
	}
	if len(l.B) != l.Out() {
		return fmt.Errorf("nn: %d biases for %d outputs: %w", len(l.B), l.Out(), ErrDimension)
	}
	return nil
}

// Clip returns layers computing the elementwise clipping
//
//	y_i = min(max(x_i, lo_i), hi_i),   i = 0, ..., n-1,
//
// exactly (in real arithmetic) with the activations of this package. Either
// end may be infinite (-Inf for no lower bound, +Inf for no upper bound), and
// lo_i = hi_i makes y_i the constant lo_i. The layers are meant to be fused
// with neighbouring affine maps (FuseLayers).
//
// When every coordinate has the same finite [lo, hi], the result is the one
// layer hardtanh_{lo,hi}(x), which is bit-exact. Other finite ends give two
// layers, with w_i = hi_i - lo_i (a constant coordinate, w_i = 0, is lo_i):
//
//	y_i = lo_i + w_i hardtanh_{0,1}((x_i - lo_i) / w_i).
//
// Otherwise the first layer is ReLU, with one or two neurons per coordinate:
//
//	max(x, c) = c + relu(x - c),   min(x, d) = d - relu(d - x),
//	clip(x, c, d) = c + relu(x - c) - relu(x - d),   x = relu(x) - relu(-x).
//
// Bounds of -Inf and +Inf on every coordinate give one identity layer. Clip
// returns an error wrapping ErrBounds for NaN ends, lo_i > hi_i, lo_i = +Inf
// or hi_i = -Inf, and one wrapping ErrDimension if the lengths differ or are
// zero.
func Clip(lo, hi []float64) ([]Layer, error) {
	if len(lo) != len(hi) || len(lo) == 0 {
		return nil, fmt.Errorf("nn: clip with %d lower and %d upper bounds: %w", len(lo), len(hi), ErrDimension)
	}
	allFinite := true
	for i := range lo {
		l, h := lo[i], hi[i]
		if math.IsNaN(l) || math.IsNaN(h) || l > h || math.IsInf(l, 1) || math.IsInf(h, -1) {
			return nil, fmt.Errorf("nn: clip coordinate %d to [%v, %v]: %w", i, l, h, ErrBounds)
		}
		allFinite = allFinite && !math.IsInf(l, 0) && !math.IsInf(h, 0)
	}
	if uniform(lo) && uniform(hi) {
		if layers := clipUniform(len(lo), lo[0], hi[0]); layers != nil {
			return layers, nil
		}
	}
	if allFinite {
		return clipHardTanh(lo, hi), nil
	}
	return clipReLU(lo, hi), nil
}

// uniform reports whether all values of v are equal.
func uniform(v []float64) bool {
	for _, x := range v {
		if x != v[0] {
			return false
		}
	}
	return true
}

// clipUniform returns the single-layer forms of clipping every one of n
// coordinates to the same [lo, hi], or nil if there is none.
func clipUniform(n int, lo, hi float64) []Layer {
	eye := func() *mat.Dense {
		w := mat.NewDense(n, n, nil)
		for i := range n {
			w.Set(i, i, 1)
		}
		return w
	}
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return []Layer{Affine(eye(), make([]float64, n))}
	case lo == hi:
		return []Layer{Affine(mat.NewDense(n, n, nil), slices.Repeat([]float64{lo}, n))}
	case lo == 0 && math.IsInf(hi, 1):
		return []Layer{{W: eye(), B: make([]float64, n), Act: Activation{Kind: ReLU}}}
	case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
		return []Layer{{W: eye(), B: make([]float64, n), Act: Activation{Kind: HardTanh, Lo: lo, Hi: hi}}}
	}
	return nil
}

// clipHardTanh returns the two-layer form lo + w hardtanh_{0,1}((x - lo)/w)
// for finite bounds.
func clipHardTanh(lo, hi []float64) []Layer {
	n := len(lo)
	w1 := mat.NewDense(n, n, nil)
	b1 := make([]float64, n)
	w2 := mat.NewDense(n, n, nil)
	b2 := make([]float64, n)
	for i := range n {
		b2[i] = lo[i]
		width := hi[i] - lo[i]
		if width == 0 {
			continue // constant: the neuron sees 0 and is not read
		}
		w1.Set(i, i, 1/width)
		b1[i] = -lo[i] / width
		w2.Set(i, i, width)
	}
	return []Layer{
		{W: w1, B: b1, Act: Activation{Kind: HardTanh, Lo: 0, Hi: 1}},
		Affine(w2, b2),
	}
}

// clipReLU returns the ReLU form for bounds of which some are infinite.
func clipReLU(lo, hi []float64) []Layer {
	n := len(lo)
	type neuron struct {
		in      int
		sign, c float64 // relu(sign*x_in - c)
		out     float64 // weight in the output
	}
	var ns []neuron
	b2 := make([]float64, n)
	for i := range n {
		l, h := lo[i], hi[i]
		finLo, finHi := !math.IsInf(l, 0), !math.IsInf(h, 0)
		switch {
		case l == h:
			b2[i] = l
		case finLo && finHi:
			ns = append(ns, neuron{i, 1, l, 1}, neuron{i, 1, h, -1})
			b2[i] = l
		case finLo:
			ns = append(ns, neuron{i, 1, l, 1})
			b2[i] = l
		case finHi:
			ns = append(ns, neuron{i, -1, -h, -1})
			b2[i] = h
		default:
			ns = append(ns, neuron{i, 1, 0, 1}, neuron{i, -1, 0, -1})
		}
	}
	m := max(len(ns), 1) // a layer needs at least one neuron
	w1 := mat.NewDense(m, n, nil)
	b1 := make([]float64, m)
	w2 := mat.NewDense(n, m, nil)
	for k, nr := range ns {
		w1.Set(k, nr.in, nr.sign)
		b1[k] = -nr.c
		w2.Set(nr.in, k, nr.out)
	}
	return []Layer{
		{W: w1, B: b1, Act: Activation{Kind: ReLU}},
		Affine(w2, b2),
	}
}
