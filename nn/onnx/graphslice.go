package onnx

import (
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// Slice: along each listed axis the positions start, start+step, ...
// before end, with ONNX's clamping (negative start and end count from the
// end; for a positive step start and end are clamped to [0, d], for a
// negative one start to [0, d-1] and end to [-1, d-1]). On a computed
// tensor it is a selection (nn.Gather); on constants (shape arithmetic)
// it is folded.

// sliced returns, for a tensor of shape dims, the first position, the step
// and the number of positions the Slice node n (inputs starts, ends, axes,
// steps from opset 10, attributes before) keeps along every axis.
func sliced(dims []int64, n *node, ops operands) (first, step, count []int64, err error) {
	param := func(i int, attr string) ([]int64, error) {
		if v, err := ops.constInts(i); err != nil || v != nil {
			return v, err
		}
		if a := n.attr(attr); a != nil {
			return a.ints, nil
		}
		return nil, nil
	}
	var p [4][]int64 // starts, ends, axes, steps
	for i, name := range []string{"starts", "ends", "axes", "steps"} {
		if p[i], err = param(i+1, name); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	starts, ends, axes, steps := p[0], p[1], p[2], p[3]
	if axes == nil {
		for a := range starts {
			axes = append(axes, int64(a))
		}
	}
	if len(ends) != len(starts) || len(axes) != len(starts) || (steps != nil && len(steps) != len(starts)) {
		return nil, nil, nil, fmt.Errorf("Slice with %d starts, %d ends, %d axes, %d steps: %w",
			len(starts), len(ends), len(axes), len(steps), ErrShape)
	}
	r := len(dims)
	first, step, count = make([]int64, r), make([]int64, r), slices.Clone(dims)
	for a := range step {
		step[a] = 1
	}
	for i, ax := range axes {
		a, err := normAxis(ax, r)
		if err != nil {
			return nil, nil, nil, err
		}
		s := int64(1)
		if steps != nil {
			s = steps[i]
		}
		if s == 0 {
			return nil, nil, nil, fmt.Errorf("Slice step 0: %w", ErrShape)
		}
		first[a], step[a], count[a] = slicePositions(dims[a], starts[i], ends[i], s)
	}
	return first, step, count, nil
}

// slicePositions returns the first position, the step and the number of
// positions of a slice [start, end) with step s of an axis of size d.
func slicePositions(d, start, end, s int64) (int64, int64, int64) {
	norm := func(v, lo, hi int64) int64 {
		if v < 0 && v > math.MinInt64/2 {
			v += d
		}
		return min(max(v, lo), hi)
	}
	var n int64
	if s > 0 {
		start, end = norm(start, 0, d), norm(end, 0, d)
		n = max(0, (end-start+s-1)/s)
	} else {
		start, end = norm(start, 0, d-1), norm(end, -1, d-1)
		n = max(0, (start-end-s-1)/-s)
	}
	return start, s, n
}

// gopSlice translates Slice of a computed tensor: a selection. The batch
// axis must be kept whole.
func gopSlice(b *graphBuilder, n *node, in []gin) error {
	x, ops, err := unary(n, in, false)
	if err != nil {
		return err
	}
	first, step, count, err := sliced(x.s.dims, n, ops)
	if err != nil {
		return err
	}
	out := shape{dims: count, batch: x.s.batch}
	if bt := x.s.batch; bt >= 0 && (first[bt] != 0 || step[bt] != 1 || count[bt] != x.s.dims[bt]) {
		return fmt.Errorf("Slice of the batch axis: %w", ErrShape)
	}
	idx, err := b.selection(out, x.s, func(a int, i int64) int64 { return first[a] + i*step[a] })
	if err != nil {
		return err
	}
	b.set(n, b.emit(n, &nn.Affine{M: &nn.Gather{N: x.s.size(), Index: idx}}, out, x.v))
	return nil
}

// foldSlice evaluates Slice of a constant.
func (b *graphBuilder) foldSlice(n *node, ops operands) (*constant, error) {
	x := ops.consts[0]
	first, step, count, err := sliced(x.dims, n, ops)
	if err != nil {
		return nil, err
	}
	out := &constant{dims: count, typ: x.typ}
	size := int(prod(count))
	if err := b.bud.take(size); err != nil {
		return nil, err
	}
	st := strides(x.dims)
	eachIndex(count, func(o []int64) {
		if size == 0 {
			return
		}
		j := 0
		for a, v := range o {
			j += int(first[a]+v*step[a]) * st[a]
		}
		if x.vals != nil {
			out.vals = append(out.vals, x.vals[j])
		} else {
			out.ints = append(out.ints, x.ints[j])
		}
	})
	return out, nil
}
