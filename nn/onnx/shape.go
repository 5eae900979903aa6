package onnx

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// shape is the shape of the data tensor flowing along the chain.
//
// The network nnbound builds acts on one sample: the data tensor with the
// batch axis removed, flattened in row-major order. The batch axis is the
// first axis of a graph input of rank >= 2 unless that axis has size 1 (then
// it is an ordinary axis); its size may be symbolic (-1). Every other axis
// has a known size >= 1. Operators move the batch axis (Gemm with transB),
// never merge it with other axes.
type shape struct {
	dims  []int64
	batch int // index of the batch axis in dims, -1 if there is none
}

// String returns the shape as "[N,1,4]", N standing for the batch axis.
func (s shape) String() string {
	parts := make([]string, len(s.dims))
	for i, d := range s.dims {
		parts[i] = strconv.FormatInt(d, 10)
		switch {
		case i == s.batch:
			parts[i] = "N"
		case d < 0:
			parts[i] = "?"
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// rank returns the number of axes.
func (s shape) rank() int { return len(s.dims) }

// sampleDims returns the sizes of the non-batch axes.
func (s shape) sampleDims() []int64 {
	out := make([]int64, 0, len(s.dims))
	for i, d := range s.dims {
		if i != s.batch {
			out = append(out, d)
		}
	}
	return out
}

// size returns the number of values in one sample. It assumes s passed check.
func (s shape) size() int {
	n := 1
	for _, d := range s.sampleDims() {
		n *= int(d)
	}
	return n
}

// check reports a non-batch axis of size < 1 and a sample of more than
// limit values.
func (s shape) check(limit int) error {
	n := 1
	for i, d := range s.dims {
		if i == s.batch {
			continue
		}
		if d < 0 {
			return fmt.Errorf("axis %d of shape %v is symbolic; only the batch axis may be: %w", i, s, ErrShape)
		}
		if d < 1 {
			return fmt.Errorf("axis %d of shape %v has size %d: %w", i, s, d, ErrShape)
		}
		if d > int64(limit) || n > limit/int(d) {
			return fmt.Errorf("shape %v has more than %d values per sample: %w", s, limit, ErrTooLarge)
		}
		n *= int(d)
	}
	return nil
}

// inputShape returns the chain's starting shape for the declared shape of
// the data input.
func inputShape(v Value, limit int) (shape, error) {
	if v.Shape == nil {
		return shape{}, fmt.Errorf("input %q has no declared shape: %w", v.Name, ErrShape)
	}
	s := shape{dims: make([]int64, len(v.Shape)), batch: -1}
	for i, d := range v.Shape {
		s.dims[i] = d.Size
	}
	if len(s.dims) >= 2 && s.dims[0] != 1 {
		s.batch = 0
	}
	if len(s.dims) == 0 {
		s.dims = []int64{1} // a scalar input is one value
	}
	if err := s.check(limit); err != nil {
		return shape{}, fmt.Errorf("input %q of shape %v: %w", v.Name, v.Shape, err)
	}
	return s, nil
}

// strides returns the row-major strides of dims.
func strides(dims []int64) []int {
	st := make([]int, len(dims))
	n := 1
	for i := len(dims) - 1; i >= 0; i-- {
		st[i] = n
		n *= int(dims[i])
	}
	return st
}

// eachIndex calls fn with every multi-index of dims in row-major order. The
// slice passed to fn is reused.
func eachIndex(dims []int64, fn func(idx []int64)) {
	idx := make([]int64, len(dims))
	for {
		fn(idx)
		k := len(dims) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < dims[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// broadcastConst combines the data shape x elementwise with a constant of
// shape c (multidirectional broadcasting). For each value of the output
// sample it returns the index of the data value (in x's sample) and of the
// constant value it combines. The constant must not vary along the batch.
func broadcastConst(x shape, c []int64, limit int) (out shape, xi, ci []int, err error) {
	r := max(len(x.dims), len(c))
	offX, offC := r-len(x.dims), r-len(c)
	out = shape{dims: make([]int64, r), batch: -1}
	if x.batch >= 0 {
		out.batch = x.batch + offX
	}
	for a := range r {
		xd, cd := int64(1), int64(1)
		if a >= offX {
			xd = x.dims[a-offX]
		}
		if a >= offC {
			cd = c[a-offC]
		}
		switch {
		case a == out.batch && cd != 1:
			return shape{}, nil, nil, fmt.Errorf("constant of shape %v varies along the batch axis of %v: %w", c, x, ErrShape)
		case a == out.batch || cd == 1 || xd == cd:
			out.dims[a] = xd
		case xd == 1:
			out.dims[a] = cd
		default:
			return shape{}, nil, nil, fmt.Errorf("shapes %v and %v do not broadcast: %w", x, c, ErrShape)
		}
	}
	if err := out.check(limit); err != nil {
		return shape{}, nil, nil, err
	}
	cs := strides(c)
	xsSample := strides(x.sampleDims())
	// Per output axis, the stride into x's sample and into c (0 when broadcast).
	var dims []int64
	var sx, sc []int
	for a, d := range out.dims {
		if a == out.batch {
			continue
		}
		dims = append(dims, d)
		stepX, stepC := 0, 0
		if ax := a - offX; ax >= 0 && x.dims[ax] != 1 {
			stepX = xsSample[sampleAxis(x, ax)]
		}
		if ac := a - offC; ac >= 0 && c[ac] != 1 {
			stepC = cs[ac]
		}
		sx, sc = append(sx, stepX), append(sc, stepC)
	}
	xi, ci = make([]int, 0, out.size()), make([]int, 0, out.size())
	eachIndex(dims, func(idx []int64) {
		i, j := 0, 0
		for k, v := range idx {
			i += int(v) * sx[k]
			j += int(v) * sc[k]
		}
		xi, ci = append(xi, i), append(ci, j)
	})
	return out, xi, ci, nil
}

// sampleAxis returns the position of the non-batch axis a of s among the
// sample axes.
func sampleAxis(s shape, a int) int {
	if s.batch >= 0 && a > s.batch {
		return a - 1
	}
	return a
}

// contraction describes a linear map applied along one axis of the data:
// the axis of size k is replaced by an axis of size m. For every
// combination of the other sample axes, out value outBase+j*outStride is
// sum_i M[j,i] * in value inBase+i*inStride.
type contraction struct {
	out                 shape
	inStride, outStride int
	inBase, outBase     []int
}

// contract returns the contraction of x along axis (which must not be the
// batch axis) to a new axis of size m at position pos of the shape that
// remains once axis is removed.
func contract(x shape, axis int, m int64, pos int, limit int) (*contraction, error) {
	if axis == x.batch {
		return nil, fmt.Errorf("the operation would mix the samples of the batch (axis %d of %v): %w", axis, x, ErrShape)
	}
	rest := slices.Delete(slices.Clone(x.dims), axis, axis+1)
	batch := x.batch
	if batch > axis {
		batch--
	}
	if batch >= pos {
		batch++
	}
	out := shape{dims: slices.Insert(rest, pos, m), batch: batch}
	if err := out.check(limit); err != nil {
		return nil, err
	}
	inSt, outSt := strides(x.sampleDims()), strides(out.sampleDims())
	c := &contraction{out: out, inStride: inSt[sampleAxis(x, axis)], outStride: outSt[sampleAxis(out, pos)]}
	// The other sample axes, with their strides on both sides.
	var dims []int64
	var si, so []int
	for a, d := range x.dims {
		if a == axis || a == x.batch {
			continue
		}
		b := a
		if a > axis {
			b--
		}
		if b >= pos {
			b++
		}
		dims = append(dims, d)
		si, so = append(si, inSt[sampleAxis(x, a)]), append(so, outSt[sampleAxis(out, b)])
	}
	eachIndex(dims, func(idx []int64) {
		i, o := 0, 0
		for k, v := range idx {
			i += int(v) * si[k]
			o += int(v) * so[k]
		}
		c.inBase, c.outBase = append(c.inBase, i), append(c.outBase, o)
	})
	return c, nil
}

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
