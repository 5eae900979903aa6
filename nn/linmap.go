package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Linear is a linear map between flattened samples, applied without a
// matrix where it is structured: a dense matrix (DenseMap), a convolution
// (*Conv2D), an average pool (*AvgPool2D), a selection of values (*Gather)
// or a scaling (*Scale). Bound propagation applies Apply to points and
// ApplyTransposed to the rows of its back-substituted coefficients, so
// memory grows with the activations, never with their square.
type Linear interface {
	In() int
	Out() int
	// Apply sets dst = M x (dst has Out() values, x In()).
	Apply(dst, x []float64)
	// ApplyTransposed sets dst = M^T y (dst has In() values, y Out()).
	ApplyTransposed(dst, y []float64)
	// AbsMap returns the map of the entrywise absolute value |M|.
	AbsMap() Linear
	// Validate reports a malformed map.
	Validate() error
}

// DenseMap is a Linear held as a dense matrix (Out() x In()).
type DenseMap struct{ W *mat.Dense }

// In returns the number of columns.
func (d DenseMap) In() int { _, c := d.W.Dims(); return c }

// Out returns the number of rows.
func (d DenseMap) Out() int { r, _ := d.W.Dims(); return r }

// Apply sets dst = W x.
func (d DenseMap) Apply(dst, x []float64) { Layer{W: d.W}.MulVec(dst, x) }

// ApplyTransposed sets dst = W^T y.
func (d DenseMap) ApplyTransposed(dst, y []float64) { Layer{W: d.W}.MulTransVec(dst, y) }

// AbsMap returns the map of |W|.
func (d DenseMap) AbsMap() Linear {
	r, c := d.W.Dims()
	a := mat.NewDense(r, c, nil)
	a.Apply(func(i, j int, v float64) float64 { return math.Abs(v) }, d.W)
	return DenseMap{a}
}

// Validate reports a non-finite weight.
func (d DenseMap) Validate() error {
	if d.W == nil {
		return fmt.Errorf("nn: dense map has no matrix: %w", ErrDimension)
	}
	raw := d.W.RawMatrix()
	for i := range raw.Rows {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if v-v != 0 {
				return fmt.Errorf("nn: weight (%d,%d) is %v: %w", i, j, v, ErrNotFinite)
			}
		}
	}
	return nil
}

// AbsMap returns the convolution with kernel |K|.
func (c *Conv2D) AbsMap() Linear { return c.Abs() }

// Gather selects values: y_i = x_{Index[i]}, or 0 where Index[i] < 0. It
// is Transpose, Pad (with the pad value as the affine map's bias), Slice
// and any other reordering of a sample.
type Gather struct {
	N     int // number of inputs
	Index []int
}

// In returns the number of inputs.
func (g *Gather) In() int { return g.N }

// Out returns the number of outputs.
func (g *Gather) Out() int { return len(g.Index) }

// Apply sets dst_i = x_{Index[i]} (0 where Index[i] < 0).
func (g *Gather) Apply(dst, x []float64) {
	for i, j := range g.Index {
		if j < 0 {
			dst[i] = 0
		} else {
			dst[i] = x[j]
		}
	}
}

// ApplyTransposed sets dst = G^T y: each y_i added to the input it came from.
func (g *Gather) ApplyTransposed(dst, y []float64) {
	clear(dst[:g.N])
	for i, j := range g.Index {
		if j >= 0 {
			dst[j] += y[i]
		}
	}
}

// AbsMap returns g: its entries are 0 and 1.
func (g *Gather) AbsMap() Linear { return g }

// Validate reports an index outside the input.
func (g *Gather) Validate() error {
	for i, j := range g.Index {
		if j >= g.N {
			return fmt.Errorf("nn: gather index %d is %d of %d inputs: %w", i, j, g.N, ErrDimension)
		}
	}
	return nil
}

// Scale multiplies each value by a factor: y_i = S[i] x_i (a diagonal
// matrix: BatchNormalization, Mul or Div by a constant).
type Scale struct{ S []float64 }

// In returns the number of values.
func (s *Scale) In() int { return len(s.S) }

// Out returns the number of values.
func (s *Scale) Out() int { return len(s.S) }

// Apply sets dst_i = S[i] x_i.
func (s *Scale) Apply(dst, x []float64) {
	for i, v := range s.S {
		dst[i] = v * x[i]
	}
}

// ApplyTransposed is Apply: the matrix is diagonal.
func (s *Scale) ApplyTransposed(dst, y []float64) { s.Apply(dst, y) }

// AbsMap returns the scaling by |S|.
func (s *Scale) AbsMap() Linear {
	a := make([]float64, len(s.S))
	for i, v := range s.S {
		a[i] = math.Abs(v)
	}
	return &Scale{a}
}

// Validate reports a non-finite factor.
func (s *Scale) Validate() error { return finiteAll("scale", s.S) }

// finiteAll reports the first NaN or infinite value of v.
func finiteAll(what string, v []float64) error {
	for i, x := range v {
		if x-x != 0 {
			return fmt.Errorf("nn: %s %d is %v: %w", what, i, x, ErrNotFinite)
		}
	}
	return nil
}
