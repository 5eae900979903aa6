package onnx

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// budget bounds the number of float64 values the translation of one file
// may allocate, so that small files declaring huge shapes fail cleanly.
// Lowered operators raise it (grant, chainlower.go); granted is their total.
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

// affine is an affine map x -> W x + b on the sample vector, as the
// translations of Gemm, MatMul, BatchNormalization and arithmetic with a
// constant give it: diagonal (W = diag(diag), w nil) for the elementwise
// ones, dense otherwise (affineOp makes it a graph node).
type affine struct {
	in, out int
	diag    []float64
	w       *mat.Dense
	b       []float64
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
