package onnx

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// budget bounds the number of float64 values the translation of one file
// may allocate, so that small files declaring huge shapes fail cleanly.
// Lowered operators raise it (grant, lowered.go); granted is their total.
type budget struct{ left, granted int }

// newBudget returns the budget for a file of n bytes: 4 Mi values, or
// 4 values per byte of the file if that is more.
func newBudget(n int) *budget { return &budget{left: max(4<<20, 4*n)} }

// take reserves n values.
func (b *budget) take(n int) error {
	if n < 0 || n > b.left {
		return fmt.Errorf("the translation needs more than %d further values: %w", b.left, ErrTooLarge)
	}
	b.left -= n
	return nil
}

// dense allocates an r x c matrix within the budget.
func (b *budget) dense(r, c int) (*mat.Dense, error) {
	if r > 0 && c > b.left/r {
		return nil, fmt.Errorf("a %d x %d matrix exceeds the remaining budget of %d values: %w", r, c, b.left, ErrTooLarge)
	}
	if err := b.take(r * c); err != nil {
		return nil, err
	}
	return mat.NewDense(r, c, nil), nil
}

// vec allocates n values within the budget.
func (b *budget) vec(n int) ([]float64, error) {
	if err := b.take(n); err != nil {
		return nil, err
	}
	return make([]float64, n), nil
}

// affine is an affine map x -> W x + b on the sample vector, kept diagonal
// (W = diag(diag), w nil) as long as possible so that elementwise operators
// on large inputs stay cheap.
type affine struct {
	in, out int
	diag    []float64
	w       *mat.Dense
	conv    *nn.Conv2D // a structured convolution (structured.go)
	b       []float64
}

// isIdentity reports whether a is x -> x.
func (a *affine) isIdentity() bool {
	if a.w != nil || a.conv != nil {
		return false
	}
	for i, d := range a.diag {
		if d != 1 || a.b[i] != 0 {
			return false
		}
	}
	return true
}

// then returns the map x -> next(a(x)).
func (a *affine) then(next *affine, bud *budget) (*affine, error) {
	if next.in != a.out {
		return nil, fmt.Errorf("internal: composing maps %d->%d and %d->%d: %w", a.in, a.out, next.in, next.out, ErrShape)
	}
	if next.isIdentity() {
		return a, nil
	}
	if a.isIdentity() {
		return next, nil
	}
	if a.conv != nil || next.conv != nil {
		return a.thenStructured(next, bud)
	}
	c := &affine{in: a.in, out: next.out}
	var err error
	if c.b, err = bud.vec(next.out); err != nil {
		return nil, err
	}
	for i := range c.b {
		s := next.b[i]
		if next.w == nil {
			s += next.diag[i] * a.b[i]
		} else {
			for j, v := range next.w.RawRowView(i) {
				s += v * a.b[j]
			}
		}
		c.b[i] = s
	}
	switch {
	case a.w == nil && next.w == nil:
		if c.diag, err = bud.vec(a.in); err != nil {
			return nil, err
		}
		for i := range c.diag {
			c.diag[i] = next.diag[i] * a.diag[i]
		}
		return c, nil
	case next.w == nil: // scale the rows of a.w
		if c.w, err = bud.dense(next.out, a.in); err != nil {
			return nil, err
		}
		c.w.Copy(a.w)
		for i, d := range next.diag {
			row := c.w.RawRowView(i)
			for j := range row {
				row[j] *= d
			}
		}
		return c, nil
	case a.w == nil: // scale the columns of next.w
		if c.w, err = bud.dense(next.out, a.in); err != nil {
			return nil, err
		}
		c.w.Copy(next.w)
		for i := range next.out {
			row := c.w.RawRowView(i)
			for j, d := range a.diag {
				row[j] *= d
			}
		}
		return c, nil
	}
	if c.w, err = bud.dense(next.out, a.in); err != nil {
		return nil, err
	}
	c.w.Mul(next.w, a.w)
	return c, nil
}

// layer returns the layer act(a(x)).
func (a *affine) layer(act nn.Activation, bud *budget) (nn.Layer, error) {
	if a.conv != nil {
		return nn.Layer{Conv: a.conv, B: a.b, Act: act}, nil
	}
	if a.w != nil {
		return nn.Layer{W: a.w, B: a.b, Act: act}, nil
	}
	w, err := bud.dense(a.out, a.in)
	if err != nil {
		return nn.Layer{}, err
	}
	for i, d := range a.diag {
		w.Set(i, i, d)
	}
	return nn.Layer{W: w, B: a.b, Act: act}, nil
}

// identity returns the map x -> x on n values.
func identity(n int, bud *budget) (*affine, error) {
	return elementwise(n, nil, nil, nil, bud)
}

// elementwise returns the map y_o = scale_o x_{src_o} + shift_o for an input
// of n values. Nil src means src_o = o, nil scale means 1, nil shift 0; the
// output has len(src) values (n if src is nil).
func elementwise(n int, src []int, scale, shift []float64, bud *budget) (*affine, error) {
	out := n
	if src != nil {
		out = len(src)
	}
	a := &affine{in: n, out: out}
	var err error
	if a.b, err = bud.vec(out); err != nil {
		return nil, err
	}
	copy(a.b, shift)
	plain := out == n
	for o, s := range src {
		plain = plain && s == o
	}
	if plain {
		if a.diag, err = bud.vec(n); err != nil {
			return nil, err
		}
		for i := range a.diag {
			a.diag[i] = 1
		}
		copy(a.diag, scale)
		return a, nil
	}
	if a.w, err = bud.dense(out, n); err != nil {
		return nil, err
	}
	for o, s := range src {
		v := 1.0
		if scale != nil {
			v = scale[o]
		}
		a.w.Set(o, s, v)
	}
	return a, nil
}

// fromLayer returns the affine part of l, diagonal when W is.
func fromLayer(l nn.Layer, bud *budget) (*affine, error) {
	r, c := l.W.Dims()
	a := &affine{in: c, out: r, b: l.B}
	if r == c {
		diag := true
		for i := range r {
			for j, v := range l.W.RawRowView(i) {
				diag = diag && (v == 0 || i == j)
			}
		}
		if diag {
			var err error
			if a.diag, err = bud.vec(r); err != nil {
				return nil, err
			}
			for i := range r {
				a.diag[i] = l.W.At(i, i)
			}
			return a, nil
		}
	}
	a.w = l.W
	return a, nil
}
