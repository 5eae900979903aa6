package onnx

import (
	"fmt"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// The operators that lay values out: the shape operators change only the
// shape (values are stored flat), Transpose, Pad and Concat along an inner
// axis select values (an nn.Gather).

// gopReshape translates Flatten, Reshape, Squeeze, Unsqueeze, Identity and
// Dropout (inference: the identity): the output is the input's value with
// a new shape.
func gopReshape(b *graphBuilder, n *node, in []gin) error {
	x, ops, err := unary(n, in, false)
	if err != nil {
		return err
	}
	if n.opType == "Dropout" {
		if len(n.outputs) > 1 && n.outputs[1] != "" && len(b.reads[n.outputs[1]]) > 0 {
			return fmt.Errorf("the mask output of Dropout is read: %w", ErrUnsupportedOp)
		}
		if len(ops.consts) > 2 && ops.consts[2] != nil {
			if t, err := ops.consts[2].integers(); err != nil || len(t) != 1 || t[0] != 0 {
				return fmt.Errorf("Dropout in training mode: %w", ErrUnsupportedOp)
			}
		}
		b.set(n, x)
		return nil
	}
	b.shape = x.s
	if err := lookupOp(n.opType)(b.builder, n, ops); err != nil {
		return err
	}
	b.set(n, tval{v: x.v, s: b.shape})
	return nil
}

// gopShape folds Shape of a computed tensor into a constant (the symbolic
// batch size is batchDim), with the start and end attributes of opset 15.
func gopShape(b *graphBuilder, n *node, in []gin) error {
	x, _, err := unary(n, in, false)
	if err != nil {
		return err
	}
	r := int64(x.s.rank())
	clamp := func(a int64) int64 {
		if a < 0 {
			a += r
		}
		return min(max(a, 0), r)
	}
	start, end := clamp(n.intAttr("start", 0)), clamp(n.intAttr("end", r))
	c := &constant{dims: []int64{max(end-start, 0)}, typ: Int64, ints: []int64{}}
	for a := start; a < end; a++ {
		d := x.s.dims[a]
		if int(a) == x.s.batch && d < 0 {
			d = batchDim
		}
		c.ints = append(c.ints, d)
	}
	b.consts[n.outputs[0]] = c
	return nil
}

// gopTranspose translates Transpose: a selection of the values of a sample
// in the permuted order (the batch axis may move; samples do not mix).
func gopTranspose(b *graphBuilder, n *node, in []gin) error {
	x, _, err := unary(n, in, false)
	if err != nil {
		return err
	}
	r := x.s.rank()
	perm := make([]int, r)
	for i := range perm {
		perm[i] = r - 1 - i
	}
	if a := n.attr("perm"); a != nil {
		if len(a.ints) != r {
			return fmt.Errorf("perm %v for a rank-%d tensor: %w", a.ints, r, ErrShape)
		}
		for i, p := range a.ints {
			perm[i] = int(p)
		}
	}
	seen := make([]bool, r)
	out := shape{dims: make([]int64, r), batch: -1}
	for i, p := range perm {
		if p < 0 || p >= r || seen[p] {
			return fmt.Errorf("perm %v is not a permutation: %w", perm, ErrShape)
		}
		seen[p] = true
		out.dims[i] = x.s.dims[p]
		if p == x.s.batch {
			out.batch = i
		}
	}
	st := strides(x.s.sampleDims())
	idx, err := b.gather(out, func(o []int64) int {
		i, k := 0, 0
		for a, p := range perm {
			if a == out.batch {
				continue
			}
			i += int(o[k]) * st[sampleAxis(x.s, p)]
			k++
		}
		return i
	})
	if err != nil {
		return err
	}
	b.set(n, b.emit(n, &nn.Affine{M: &nn.Gather{N: x.s.size(), Index: idx}}, out, x.v))
	return nil
}

// gather returns, for each value of a sample of shape out in row-major
// order, the input value src(index) it is (-1: none), within the budget.
func (b *graphBuilder) gather(out shape, src func(index []int64) int) ([]int, error) {
	if err := out.check(b.bud.left); err != nil {
		return nil, err
	}
	if err := b.bud.take(out.size()); err != nil {
		return nil, err
	}
	idx := make([]int, 0, out.size())
	eachIndex(out.sampleDims(), func(o []int64) { idx = append(idx, src(o)) })
	return idx, nil
}

// selection returns, for each value of a sample of shape out, the value
// of a sample of x at the positions pos(a, i) along each axis a, i the
// position along a in out (-1 on any axis: none).
func (b *graphBuilder) selection(out, x shape, pos func(a int, i int64) int64) ([]int, error) {
	st := strides(x.sampleDims())
	return b.gather(out, func(o []int64) int {
		j, k := 0, 0
		for a := range out.dims {
			if a == out.batch {
				continue
			}
			p := pos(a, o[k])
			if p < 0 {
				return -1
			}
			j += int(p) * st[k]
			k++
		}
		return j
	})
}

// gopConcat translates Concat of computed tensors: an nn.Concat when the
// axis is the outermost of a sample (every axis before it of size 1),
// followed by a Gather that interleaves the inputs otherwise.
func gopConcat(b *graphBuilder, n *node, in []gin) error {
	ts, all := computed(in)
	if !all {
		return fmt.Errorf("Concat with a constant: %w", ErrUnsupportedOp)
	}
	x := ts[0].s
	axis, err := normAxis(n.intAttr("axis", 0), x.rank())
	if err != nil {
		return err
	}
	if axis == x.batch {
		return fmt.Errorf("Concat along the batch axis: %w", ErrShape)
	}
	out := shape{dims: slices.Clone(x.dims), batch: x.batch}
	out.dims[axis] = 0
	offs := make([]int64, len(ts)+1) // of each input along axis
	for i, t := range ts {
		d := slices.Clone(t.s.dims)
		if len(d) != len(x.dims) || t.s.batch != x.batch {
			return fmt.Errorf("Concat of shapes %v and %v: %w", x, t.s, ErrShape)
		}
		d[axis] = x.dims[axis]
		if !slices.Equal(d, x.dims) {
			return fmt.Errorf("Concat of shapes %v and %v along axis %d: %w", x, t.s, axis, ErrShape)
		}
		out.dims[axis] += t.s.dims[axis]
		offs[i+1] = out.dims[axis]
	}
	flat := out
	if prod(sampleBefore(out, axis)) != 1 {
		flat = shape{dims: []int64{int64(out.size())}, batch: -1}
	}
	c := b.emit(n, nn.Concat{}, flat, values(ts)...)
	if prod(sampleBefore(out, axis)) == 1 {
		b.set(n, c)
		return nil
	}
	base := make([]int, len(ts)) // of each input in the concatenation
	for i := 1; i < len(ts); i++ {
		base[i] = base[i-1] + ts[i-1].s.size()
	}
	sa := sampleAxis(out, axis)
	idx, err := b.gather(out, func(o []int64) int {
		i, _ := slices.BinarySearch(offs, o[sa]+1)
		i--
		p := slices.Clone(o)
		p[sa] -= offs[i]
		dims := ts[i].s.sampleDims()
		st, j := strides(dims), base[i]
		for k, v := range p {
			j += int(v) * st[k]
		}
		return j
	})
	if err != nil {
		return err
	}
	b.set(n, b.emit(n, &nn.Affine{M: &nn.Gather{N: out.size(), Index: idx}}, out, c.v))
	return nil
}

// sampleBefore returns the sizes of the sample axes of s before axis.
func sampleBefore(s shape, axis int) []int64 {
	var d []int64
	for a := range axis {
		if a != s.batch {
			d = append(d, s.dims[a])
		}
	}
	return d
}

// gopPad translates Pad: modes constant (the pad value as the bias of the
// selection), edge, reflect and wrap; pads, value and axes from the inputs
// (opset >= 11) or the attributes.
func gopPad(b *graphBuilder, n *node, in []gin) error {
	x, ops, err := unary(n, in, false)
	if err != nil {
		return err
	}
	mode := "constant"
	if a := n.attr("mode"); a != nil {
		mode = a.s
	}
	pads, axes, value, err := padParams(n, ops, x.s.rank())
	if err != nil {
		return err
	}
	begin := make([]int64, x.s.rank())
	out := shape{dims: slices.Clone(x.s.dims), batch: x.s.batch}
	for i, a := range axes {
		ax, err := normAxis(a, x.s.rank())
		if err != nil {
			return err
		}
		p0, p1 := pads[i], pads[i+len(axes)]
		if ax == x.s.batch {
			if p0 != 0 || p1 != 0 {
				return fmt.Errorf("pads %v on the batch axis: %w", pads, ErrShape)
			}
			continue
		}
		if p0 < -x.s.dims[ax] || p0 > 1<<20 || p1 < -x.s.dims[ax] || p1 > 1<<20 {
			return fmt.Errorf("pads %v: %w", pads, ErrShape)
		}
		begin[ax], out.dims[ax] = p0, out.dims[ax]+p0+p1
	}
	src, ok := padSource(mode)
	if !ok {
		return fmt.Errorf("Pad mode %q: %w", mode, ErrUnsupportedOp)
	}
	idx, err := b.selection(out, x.s, func(a int, i int64) int64 { return src(i-begin[a], x.s.dims[a]) })
	if err != nil {
		return err
	}
	var bias []float64
	if value != 0 {
		bias = make([]float64, len(idx))
		for o, j := range idx {
			if j < 0 {
				bias[o] = value
			}
		}
	}
	b.set(n, b.emit(n, &nn.Affine{M: &nn.Gather{N: x.s.size(), Index: idx}, B: bias}, out, x.v))
	return nil
}

// padParams returns the pads of a Pad node (from input 1 or, before opset
// 11, the attribute), the axes they apply to (input 3, opset 18; all by
// default) and the pad value (input 2 or the attribute value).
func padParams(n *node, ops operands, rank int) (pads, axes []int64, value float64, err error) {
	value = n.floatAttr("value", 0)
	if a := n.attr("pads"); a != nil {
		pads = a.ints
	}
	if p, err := ops.constInts(1); err != nil || p != nil {
		if err != nil {
			return nil, nil, 0, fmt.Errorf("pads: %w", err)
		}
		pads = p
	}
	if len(ops.consts) > 2 && ops.consts[2] != nil {
		if value, err = ops.consts[2].scalar(); err != nil {
			return nil, nil, 0, fmt.Errorf("constant_value: %w", err)
		}
	}
	axes = make([]int64, rank)
	for i := range axes {
		axes[i] = int64(i)
	}
	if a, err := ops.constInts(3); err != nil || a != nil {
		if err != nil {
			return nil, nil, 0, fmt.Errorf("axes: %w", err)
		}
		axes = a
	}
	if len(pads) != 2*len(axes) {
		return nil, nil, 0, fmt.Errorf("%d pads for %d axes: %w", len(pads), len(axes), ErrShape)
	}
	return pads, axes, value, nil
}

// padSource returns, for a Pad mode, the input position along an axis of
// size d that position i (relative to the input's start) reads, -1 for the
// pad value.
func padSource(mode string) (func(i, d int64) int64, bool) {
	switch mode {
	case "constant":
		return func(i, d int64) int64 {
			if i < 0 || i >= d {
				return -1
			}
			return i
		}, true
	case "edge":
		return func(i, d int64) int64 { return min(max(i, 0), d-1) }, true
	case "wrap":
		return func(i, d int64) int64 { return ((i % d) + d) % d }, true
	case "reflect":
		return func(i, d int64) int64 {
			if d == 1 {
				return 0
			}
			p := 2 * (d - 1)
			i = ((i % p) + p) % p
			return min(i, p-i)
		}, true
	}
	return nil, false
}
