package nn

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ErrBounds reports clipping bounds that are NaN or inverted (lo > hi).
var ErrBounds = errors.New("invalid clipping bounds")

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
		return []Layer{AffineLayer(eye(), make([]float64, n))}
	case lo == hi:
		return []Layer{AffineLayer(mat.NewDense(n, n, nil), slices.Repeat([]float64{lo}, n))}
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
		AffineLayer(w2, b2),
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
		AffineLayer(w2, b2),
	}
}
