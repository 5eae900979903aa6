package onnx

import "fmt"

// Convolutions and pooling are lowered to a dense affine map over the
// flattened sample (row-major NCHW): a layer of nn.Network is dense, and
// every consumer of a network (bound propagation, the certificate,
// quantisation, pruning, the writers) works on dense weight matrices. The
// matrix of a lowered operator with in inputs and out outputs has out*in
// entries, most of them zero; structured (sparse, weight-shared) layers
// are not supported yet, so the lowering is capped.

// MaxLoweredEntries is the largest dense matrix, in entries, that one
// Conv, AveragePool or GlobalAveragePool node is lowered to: 2^24 float64
// values, 128 MiB. A larger node is an ErrTooLarge error naming it.
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

// lowered returns the zero affine map from the current sample to out
// values, with a dense matrix, for the operator op. The memory of the
// matrix and of one fused copy of it is granted to the budget.
func (b *builder) lowered(op string, out int) (*affine, error) {
	in := b.shape.size()
	if out < 1 || in > MaxLoweredEntries/out {
		return nil, fmt.Errorf("%s lowered to a dense %d x %d matrix exceeds %d entries (128 MiB); "+
			"structured convolution is not supported yet: %w", op, out, in, MaxLoweredEntries, ErrTooLarge)
	}
	if err := b.bud.grant(2 * (out*in + out + in)); err != nil {
		return nil, err
	}
	a := &affine{in: in, out: out}
	var err error
	if a.w, err = b.bud.dense(out, in); err != nil {
		return nil, err
	}
	if a.b, err = b.bud.vec(out); err != nil {
		return nil, err
	}
	return a, nil
}
