package onnx

import "fmt"

// Pooling, and convolutions whose matrix is small (structured.go), are
// lowered to a dense affine map over the flattened sample (row-major
// NCHW), which every consumer of a network (bound propagation, the
// certificate, quantisation, pruning, the writers) reads. The matrix of a
// lowered operator with in inputs and out outputs has out*in entries, most
// of them zero, so the lowering is capped; a large Conv is read as a
// structured layer instead.

// MaxLoweredEntries is the largest dense matrix, in entries, that one
// AveragePool or GlobalAveragePool node, or a structured convolution
// composed with a map that does not fold into it (a residual branch), is
// lowered to: 2^24 float64 values, 128 MiB. A larger node is an
// ErrTooLarge error naming it. (A Conv on its own is lowered only up to
// MaxDenseConvEntries.)
const MaxLoweredEntries = 1 << 24

// maxGranted bounds the values that the lowered nodes of one file may add
// to its budget (512 MiB of float64): the lowered matrices are justified
// by the declared shapes, not by the size of the file.
const maxGranted = 1 << 26

// grant raises the budget by n values, within maxGranted over the file.
func (b *budget) grant(n int) error {
	if n < 0 || n > maxGranted-b.granted {
		return fmt.Errorf("the lowered operators need more than %d values in all: %w", maxGranted, ErrTooLarge)
	}
	b.granted += n
	b.left += n
	return nil
}

// lowered returns the zero affine map from the current sample [C,H,W] to
// c channels of size out, with a dense matrix, for the operator op, and
// records the lowering for Info.Lowered. The memory of the matrix and of
// one fused copy of it is granted to the budget.
func (b *builder) lowered(op string, c int, out [2]int) (*affine, error) {
	in, rows := b.shape.size(), 0
	if c <= MaxLoweredEntries && out[0] <= MaxLoweredEntries && out[1] <= MaxLoweredEntries {
		rows = min(c*out[0], MaxLoweredEntries+1) * out[1] // no overflow: each factor <= 2^24
	}
	if rows < 1 || rows > MaxLoweredEntries || in > MaxLoweredEntries/rows {
		return nil, fmt.Errorf("%s lowered to a dense matrix of %dx%dx%d rows and %d columns exceeds %d entries "+
			"(128 MiB): %w", op, c, out[0], out[1], in, MaxLoweredEntries, ErrTooLarge)
	}
	if err := b.bud.grant(2 * (rows*in + rows + in)); err != nil {
		return nil, err
	}
	a := &affine{in: in, out: rows}
	var err error
	if a.w, err = b.bud.dense(rows, in); err != nil {
		return nil, err
	}
	if a.b, err = b.bud.vec(rows); err != nil {
		return nil, err
	}
	d := b.shape.dims
	b.lowerings = append(b.lowerings, fmt.Sprintf("%s %dx%dx%d -> %dx%dx%d (%d x %d)",
		op, d[1], d[2], d[3], c, out[0], out[1], rows, in))
	return a, nil
}
