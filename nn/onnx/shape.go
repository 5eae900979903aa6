package onnx

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// shape is the shape of a computed tensor.
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

// inputShape returns the shape of the data input for the declared shape of
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
