package onnx

import (
	"fmt"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// gopGather translates Gather of a computed tensor at constant indices
// along one axis (not the batch axis): a selection,
//
//	y[a.., j.., b..] = x[a.., idx[j..], b..],   negative indices from the end.
func gopGather(b *graphBuilder, n *node, in []gin) error {
	x, ops, ax, err := unaryAlong(n, in, "Gather along the batch axis")
	if err != nil {
		return err
	}
	c := ops.consts[1]
	idx, err := c.integers()
	if err != nil {
		return fmt.Errorf("indices: %w", err)
	}
	d := x.s.dims[ax]
	for i, j := range idx {
		if j < -d || j >= d {
			return fmt.Errorf("index %d is %d on an axis of %d: %w", i, j, d, ErrShape)
		}
		if j < 0 {
			idx[i] = j + d
		}
	}
	out := shape{dims: slices.Concat(x.s.dims[:ax], c.dims, x.s.dims[ax+1:]), batch: x.s.batch}
	if out.batch > ax {
		out.batch += len(c.dims) - 1
	}
	st := strides(x.s.sampleDims())
	sa := st[sampleAxis(x.s, ax)]
	ist := strides(c.dims)
	sel, err := b.gather(out, func(o []int64) int {
		// o runs over the sample axes of out: those of x before ax, the
		// index axes, those of x after ax.
		before := sampleAxis(x.s, ax)
		j, k := 0, 0
		for a := range before {
			j += int(o[a]) * st[a]
		}
		for a := range c.dims {
			k += int(o[before+a]) * ist[a]
		}
		j += int(idx[k]) * sa
		for a := before + 1; a < len(st); a++ {
			j += int(o[a-1+len(c.dims)]) * st[a]
		}
		return j
	})
	if err != nil {
		return err
	}
	b.set(n, b.emit(n, &nn.Affine{M: &nn.Gather{N: x.s.size(), Index: sel}}, out, x.v))
	return nil
}

// unaryAlong reads the one computed input of n (the others constants) and
// its "axis" attribute (default 0), refusing the batch axis with the
// message batchMsg.
func unaryAlong(n *node, in []gin, batchMsg string) (tval, operands, int, error) {
	x, ops, err := unary(n, in, false)
	if err != nil {
		return x, ops, 0, err
	}
	ax, err := axisOf(n.intAttr("axis", 0), x.s.rank())
	if err != nil {
		return x, ops, 0, err
	}
	if ax == x.s.batch {
		return x, ops, 0, fmt.Errorf("%s: %w", batchMsg, ErrShape)
	}
	return x, ops, ax, nil
}
