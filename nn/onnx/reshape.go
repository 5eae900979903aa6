package onnx

import (
	"fmt"
	"slices"
)

// The shape arithmetic of Reshape, Flatten, Squeeze and Unsqueeze (see
// ops_shape.go): each returns the new shape of the data, batch axis
// included, or an error when the batch axis would merge with others.

// reshape returns x reshaped to target (ONNX Reshape: 0 copies the input
// dimension unless allowZero, -1 is inferred). The values of a sample keep
// their order; the reshape must keep the batch axis whole, with the same
// values before and after it.
func reshape(x shape, target []int64, allowZero bool) (shape, error) {
	t := slices.Clone(target)
	copied := -1 // axis of t that copies the batch axis
	infer := 0
	for j, d := range t {
		switch {
		case d == 0 && !allowZero:
			if j >= len(x.dims) {
				return shape{}, fmt.Errorf("reshape target %v copies axis %d of %v: %w", target, j, x, ErrShape)
			}
			t[j] = x.dims[j]
			if j == x.batch {
				copied = j
			}
		case d == batchDim: // a folded Shape's batch size
			if x.batch < 0 || copied >= 0 {
				return shape{}, fmt.Errorf("reshape target %v has a batch size but %v no batch axis: %w", target, x, ErrShape)
			}
			t[j], copied = x.dims[x.batch], j
		case d == -1:
			infer++
		case d < 0:
			return shape{}, fmt.Errorf("reshape target %v has a negative size: %w", target, ErrShape)
		}
	}
	if infer > 1 {
		return shape{}, fmt.Errorf("reshape target %v has more than one -1: %w", target, ErrShape)
	}
	if x.batch < 0 {
		dims, ok := fill(t, int64(x.size()))
		if !ok {
			return shape{}, fmt.Errorf("cannot reshape %v to %v: %w", x, target, ErrShape)
		}
		return shape{dims: dims, batch: -1}, nil
	}
	b := x.batch
	pre, suf := prod(x.dims[:b]), prod(x.dims[b+1:])
	for j, d := range t {
		isBatch := j == copied || (copied < 0 && (d == -1 || (x.dims[b] > 0 && d == x.dims[b])))
		if !isBatch {
			continue
		}
		left, okL := fill(t[:j], pre)
		right, okR := fill(t[j+1:], suf)
		if !okL || !okR {
			continue
		}
		dims := append(append(left, x.dims[b]), right...)
		return shape{dims: dims, batch: j}, nil
	}
	return shape{}, fmt.Errorf("reshape of %v to %v would move values between the samples of the batch: %w", x, target, ErrShape)
}

// fill returns dims with its -1 (if any) replaced so that the product is n,
// and whether that is possible.
func fill(dims []int64, n int64) ([]int64, bool) {
	out := slices.Clone(dims)
	known, hole := int64(1), -1
	for j, d := range out {
		if d == -1 {
			if hole >= 0 {
				return nil, false
			}
			hole = j
			continue
		}
		if d < 1 || known > n/d {
			return nil, false
		}
		known *= d
	}
	if hole < 0 {
		return out, known == n
	}
	if n%known != 0 {
		return nil, false
	}
	out[hole] = n / known
	return out, true
}

// prod returns the product of dims (all known and small: checked shapes).
func prod(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}

// flatten returns x flattened to 2-D at axis (ONNX Flatten).
func flatten(x shape, axis int64) (shape, error) {
	r := int64(len(x.dims))
	if axis < 0 {
		axis += r
	}
	if axis < 0 || axis > r {
		return shape{}, fmt.Errorf("flatten axis %d of a rank-%d tensor: %w", axis, r, ErrShape)
	}
	group := func(lo, hi int64) int64 {
		if x.batch >= int(lo) && x.batch < int(hi) {
			return -1
		}
		return prod(x.dims[lo:hi])
	}
	s, err := reshape(x, []int64{group(0, axis), group(axis, r)}, true)
	if err != nil {
		return shape{}, fmt.Errorf("flatten at axis %d: %w", axis, err)
	}
	return s, nil
}

// squeeze removes the unit axes listed (all unit axes if axes is nil).
func squeeze(x shape, axes []int64) (shape, error) {
	drop := make([]bool, len(x.dims))
	if axes == nil {
		for a, d := range x.dims {
			drop[a] = d == 1 && a != x.batch
		}
	}
	for _, a := range axes {
		ax, err := normAxis(a, len(x.dims))
		if err != nil {
			return shape{}, err
		}
		if ax == x.batch || x.dims[ax] != 1 {
			return shape{}, fmt.Errorf("squeeze of axis %d of %v, which is not a unit axis: %w", a, x, ErrShape)
		}
		drop[ax] = true
	}
	out := shape{batch: -1}
	for a, d := range x.dims {
		if a == x.batch {
			out.batch = len(out.dims)
		}
		if !drop[a] {
			out.dims = append(out.dims, d)
		}
	}
	return out, nil
}

// unsqueeze inserts unit axes at the listed positions of the output.
func unsqueeze(x shape, axes []int64) (shape, error) {
	r := len(x.dims) + len(axes)
	unit := make([]bool, r)
	for _, a := range axes {
		ax, err := normAxis(a, r)
		if err != nil {
			return shape{}, err
		}
		if unit[ax] {
			return shape{}, fmt.Errorf("unsqueeze axes %v repeat an axis: %w", axes, ErrShape)
		}
		unit[ax] = true
	}
	out := shape{dims: make([]int64, 0, r), batch: -1}
	k := 0
	for a := range r {
		if unit[a] {
			out.dims = append(out.dims, 1)
			continue
		}
		if k == x.batch {
			out.batch = a
		}
		out.dims = append(out.dims, x.dims[k])
		k++
	}
	return out, nil
}

// normAxis maps a possibly negative axis of a rank-r tensor to [0, r).
func normAxis(a int64, r int) (int, error) {
	if a < 0 {
		a += int64(r)
	}
	if a < 0 || a >= int64(r) {
		return 0, fmt.Errorf("axis %d out of range for rank %d: %w", a, r, ErrShape)
	}
	return int(a), nil
}
