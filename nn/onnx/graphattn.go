package onnx

import (
	"fmt"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// The operators of small transformers, built from three nn pieces: the
// elementwise functions nn.Unary, the product of two values nn.Mul and
// sums as an nn.Sparse map. With a, b computed tensors:
//
//	Div(a, b)     a * reciprocal(b)
//	MatMul(a, b)  y[.., m, n] = sum_k a[.., m, k] b[.., k, n]: both read
//	              at [.., m, n, k] (Gathers), multiplied, summed over k
//	Softmax(x)    y_i = 1 / sum_j exp(x_j - x_i) along the axis (opset 13):
//	              the same real number as exp(x_i) / sum_j exp(x_j), never
//	              overflowing to NaN
//
// and broadcasting of two computed tensors is a Gather of each.

// gopUnaryFn translates Exp, Sqrt, Reciprocal, Erf (nn.Unary) and Neg (a
// scaling by -1).
func gopUnaryFn(b *graphBuilder, n *node, in []gin) error {
	x, _, err := unary(n, in, false)
	if err != nil {
		return err
	}
	var op nn.Op
	switch n.opType {
	case "Exp":
		op = nn.Unary{F: nn.Exp}
	case "Sqrt":
		op = nn.Unary{F: nn.Sqrt}
	case "Reciprocal":
		op = nn.Unary{F: nn.Reciprocal}
	case "Erf":
		op = nn.Unary{F: nn.Erf}
	case "Neg":
		op = &nn.Affine{M: &nn.Scale{S: repeat(x.s.size(), -1)}}
	}
	b.set(n, b.emit(n, op, x.s, x.v))
	return nil
}

// gopPow translates Pow of a computed tensor by a constant scalar exponent
// 1, 2, 3, 0.5 or -1.
func gopPow(b *graphBuilder, n *node, in []gin) error {
	x, ops, err := unary(n, in, false)
	if err != nil {
		return err
	}
	e, err := ops.consts[1].scalar()
	if err != nil {
		return fmt.Errorf("exponent: %w", err)
	}
	fn := map[float64]nn.UnaryFunc{2: nn.Square, 3: nn.Cube, 0.5: nn.Sqrt, -1: nn.Reciprocal}
	switch f, ok := fn[e]; {
	case e == 1:
		b.set(n, x)
	case ok:
		b.set(n, b.emit(n, nn.Unary{F: f}, x.s, x.v))
	default:
		return fmt.Errorf("Pow with exponent %v (1, 2, 3, 0.5 and -1 are read): %w", e, ErrUnsupportedOp)
	}
	return nil
}

// axisOf returns axis a of a rank-r tensor, negative counting from the end.
func axisOf(a int64, r int) (int, error) {
	if a < 0 {
		a += int64(r)
	}
	if a < 0 || a >= int64(r) {
		return 0, fmt.Errorf("axis %d of a rank-%d tensor: %w", a, r, ErrShape)
	}
	return int(a), nil
}

// noBatch reports an error if any of ts has a batch axis (the operators
// of this file read batch-1 tensors).
func noBatch(n *node, ts ...tval) error {
	for _, t := range ts {
		if t.s.batch >= 0 {
			return fmt.Errorf("%s of a tensor of shape %v with a batch axis (export with batch size 1): %w", n.opType, t.s, ErrUnsupportedOp)
		}
	}
	return nil
}

// reduce returns the Sparse map summing x over the axes (weight w; not
// the batch axis), and the output shape (the axes kept as 1 with keep).
func reduce(x shape, axes []int, keep bool, w float64) (*nn.Sparse, shape) {
	out := shape{batch: -1}
	for a, d := range x.dims {
		switch {
		case a == x.batch:
			out.batch = len(out.dims)
			out.dims = append(out.dims, d)
		case !slices.Contains(axes, a):
			out.dims = append(out.dims, d)
		case keep:
			out.dims = append(out.dims, 1)
		}
	}
	dims := x.sampleDims()
	axes = slices.Clone(axes)
	for i, a := range axes {
		axes[i] = sampleAxis(x, a)
	}
	// Output index of each input value, then rows in order.
	ost := strides(reducedDims(dims, axes))
	rows := make([][]int, prod(reducedDims(dims, axes)))
	j := 0
	eachIndex(dims, func(idx []int64) {
		o, k := 0, 0
		for a, v := range idx {
			if !slices.Contains(axes, a) {
				o += int(v) * ost[k]
				k++
			}
		}
		rows[o] = append(rows[o], j)
		j++
	})
	m := &nn.Sparse{N: x.size(), Start: []int{0}}
	for _, r := range rows {
		m.Col = append(m.Col, r...)
		m.W = append(m.W, repeat(len(r), w)...)
		m.Start = append(m.Start, len(m.Col))
	}
	return m, out
}

// reducedDims returns dims without the axes.
func reducedDims(dims []int64, axes []int) []int64 {
	var out []int64
	for a, d := range dims {
		if !slices.Contains(axes, a) {
			out = append(out, d)
		}
	}
	return out
}

// gopReduceMean translates ReduceMean (axes an attribute, opset 13, or an
// input, opset 18) and ReduceSum (axes an input): a Sparse map of weights
// 1/n or 1.
func gopReduceMean(b *graphBuilder, n *node, in []gin) error {
	x, ops, err := unary(n, in, false)
	if err != nil {
		return err
	}
	var raw []int64
	if a := n.attr("axes"); a != nil {
		raw = a.ints
	} else if len(ops.consts) > 1 && ops.consts[1] != nil {
		if raw, err = ops.consts[1].integers(); err != nil {
			return err
		}
	}
	var axes []int
	for _, a := range raw {
		ax, err := axisOf(a, x.s.rank())
		if err != nil {
			return err
		}
		if ax == x.s.batch {
			return fmt.Errorf("%s along the batch axis: %w", n.opType, ErrShape)
		}
		axes = append(axes, ax)
	}
	if len(raw) == 0 {
		if n.intAttr("noop_with_empty_axes", 0) != 0 {
			b.set(n, x)
			return nil
		}
		for a := range x.s.rank() {
			if a != x.s.batch {
				axes = append(axes, a)
			}
		}
	}
	count := 1
	for _, a := range axes {
		count *= int(x.s.dims[a])
	}
	w := 1.0
	if n.opType == "ReduceMean" {
		w = 1 / float64(count)
	}
	m, out := reduce(x.s, axes, n.intAttr("keepdims", 1) != 0, w)
	if err := b.bud.take(len(m.W)); err != nil {
		return err
	}
	b.set(n, b.emit(n, &nn.Affine{M: m}, out, x.v))
	return nil
}

// spread returns t read at the values idx of its sample, with shape out
// (t itself when idx is every value in order).
func (b *graphBuilder) spread(n *node, t tval, idx []int, out shape) tval {
	if len(idx) == t.s.size() && slices.IsSorted(idx) && (len(idx) == 0 || idx[len(idx)-1] == len(idx)-1) {
		return tval{v: t.v, s: out}
	}
	return b.emit(n, &nn.Affine{M: &nn.Gather{N: t.s.size(), Index: idx}}, out, t.v)
}

// broadcastPair returns a and c broadcast to their common shape.
func (b *graphBuilder) broadcastPair(n *node, a, c tval) (tval, tval, error) {
	if err := noBatch(n, a, c); err != nil {
		return a, c, err
	}
	out, ai, ci, err := broadcastConst(a.s, c.s.dims, b.bud.left)
	if err != nil {
		return a, c, err
	}
	if err := b.bud.take(2 * len(ai)); err != nil {
		return a, c, err
	}
	return b.spread(n, a, ai, out), b.spread(n, c, ci, out), nil
}

// binary translates Add, Sub, Mul and Div of two computed tensors.
func (b *graphBuilder) binary(n *node, x, y tval) error {
	if n.opType == "Div" {
		y = b.emit(n, nn.Unary{F: nn.Reciprocal}, y.s, y.v)
	}
	if !sameSample(x.s, y.s) || x.s.batch != y.s.batch {
		var err error
		if x, y, err = b.broadcastPair(n, x, y); err != nil {
			return err
		}
	}
	var op nn.Op = nn.Mul{}
	if n.opType == "Add" || n.opType == "Sub" {
		op = nn.Add{Negate: n.opType == "Sub"}
	}
	b.set(n, b.emit(n, op, x.s, x.v, y.v))
	return nil
}

// matmul2 translates MatMul of two computed tensors of rank >= 2.
func (b *graphBuilder) matmul2(n *node, x, y tval) error {
	if err := noBatch(n, x, y); err != nil {
		return err
	}
	rx, ry := x.s.rank(), y.s.rank()
	if rx < 2 || ry < 2 || x.s.dims[rx-1] != y.s.dims[ry-2] {
		return fmt.Errorf("MatMul of shapes %v and %v: %w", x.s, y.s, ErrShape)
	}
	m, k, nn_ := int(x.s.dims[rx-2]), int(x.s.dims[rx-1]), int(y.s.dims[ry-1])
	lead, li, lj, err := broadcastConst(shape{dims: x.s.dims[:rx-2], batch: -1}, y.s.dims[:ry-2], b.bud.left)
	if err != nil {
		return err
	}
	size := len(li) * m * nn_ * k
	if err := b.bud.take(4 * size); err != nil {
		return err
	}
	xi, yi := make([]int, 0, size), make([]int, 0, size)
	for l := range li {
		for r := range m {
			for c := range nn_ {
				for t := range k {
					xi = append(xi, li[l]*m*k+r*k+t)
					yi = append(yi, lj[l]*k*nn_+t*nn_+c)
				}
			}
		}
	}
	pdims := append(slices.Clone(lead.dims), int64(m), int64(nn_), int64(k))
	ps := shape{dims: pdims, batch: -1}
	a := b.emit(n, &nn.Affine{M: &nn.Gather{N: x.s.size(), Index: xi}}, ps, x.v)
	c := b.emit(n, &nn.Affine{M: &nn.Gather{N: y.s.size(), Index: yi}}, ps, y.v)
	p := b.emit(n, nn.Mul{}, ps, a.v, c.v)
	sum, out := reduce(ps, []int{len(pdims) - 1}, false, 1)
	b.set(n, b.emit(n, &nn.Affine{M: sum}, out, p.v))
	return nil
}

// gopSoftmax translates Softmax along one axis (opset 13; the last axis
// by default) as 1 / sum_j exp(x_j - x_i).
func gopSoftmax(b *graphBuilder, n *node, in []gin) error {
	x, _, err := unary(n, in, false)
	if err != nil {
		return err
	}
	if err := noBatch(n, x); err != nil {
		return err
	}
	ax, err := axisOf(n.intAttr("axis", -1), x.s.rank())
	if err != nil {
		return err
	}
	d := int(x.s.dims[ax])
	inner := int(prod(x.s.dims[ax+1:]))
	outer := x.s.size() / (d * inner)
	size := x.s.size() * d
	if err := b.bud.take(4 * size); err != nil {
		return err
	}
	// Differences x_j - x_i at [outer, i, inner, j]: a Sparse map of rows
	// (+1 at j, -1 at i; the row of j = i is zero).
	diff := &nn.Sparse{N: x.s.size(), Start: []int{0}}
	for o := range outer {
		for i := range d {
			for s := range inner {
				for j := range d {
					if j != i {
						diff.Col = append(diff.Col, (o*d+j)*inner+s, (o*d+i)*inner+s)
						diff.W = append(diff.W, 1, -1)
					}
					diff.Start = append(diff.Start, len(diff.Col))
				}
			}
		}
	}
	ds := shape{dims: append(slices.Clone(x.s.dims), int64(d)), batch: -1}
	t := b.emit(n, &nn.Affine{M: diff}, ds, x.v)
	t = b.emit(n, nn.Unary{F: nn.Exp}, ds, t.v)
	sum, _ := reduce(ds, []int{len(ds.dims) - 1}, false, 1)
	t = b.emit(n, &nn.Affine{M: sum}, x.s, t.v)
	b.set(n, b.emit(n, nn.Unary{F: nn.Reciprocal}, x.s, t.v))
	return nil
}
