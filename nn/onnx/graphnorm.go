package onnx

import (
	"fmt"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// gopSplit translates Split of a computed tensor along an axis, the sizes
// a constant input (opset 13), an attribute (before) or equal parts: one
// selection per output.
func gopSplit(b *graphBuilder, n *node, in []gin) error {
	x, ops, ax, err := unaryAlong(n, in, "Split of the batch axis")
	if err != nil {
		return err
	}
	var parts []int64
	switch {
	case len(ops.consts) > 1 && ops.consts[1] != nil:
		if parts, err = ops.consts[1].integers(); err != nil {
			return err
		}
	case n.attr("split") != nil:
		parts = n.attr("split").ints
	default:
		d, k := x.s.dims[ax], int64(len(n.outputs))
		if d%k != 0 {
			return fmt.Errorf("Split of an axis of %d into %d equal parts: %w", d, k, ErrShape)
		}
		parts = slices.Repeat([]int64{d / k}, int(k))
	}
	if len(parts) != len(n.outputs) {
		return fmt.Errorf("Split into %d parts with %d outputs: %w", len(parts), len(n.outputs), ErrShape)
	}
	var first int64
	for i, p := range parts {
		if p < 0 {
			return fmt.Errorf("Split part %d of size %d: %w", i, p, ErrShape)
		}
		out := shape{dims: slices.Clone(x.s.dims), batch: x.s.batch}
		out.dims[ax] = p
		at := first
		idx, err := b.selection(out, x.s, func(a int, j int64) int64 {
			if a == ax {
				return at + j
			}
			return j
		})
		if err != nil {
			return err
		}
		b.vals[n.outputs[i]] = b.emit(n, &nn.Affine{M: &nn.Gather{N: x.s.size(), Index: idx}}, out, x.v)
		first += p
	}
	if first != x.s.dims[ax] {
		return fmt.Errorf("Split parts %v of an axis of %d: %w", parts, x.s.dims[ax], ErrShape)
	}
	return nil
}

// gopLayerNorm translates LayerNormalization (opset 17; only its first
// output read) as its opset-13 decomposition: d = x - mean(x),
// y = d * reciprocal(sqrt(mean(d^2) + epsilon)) * scale + bias over the
// axes from axis on.
func gopLayerNorm(b *graphBuilder, n *node, in []gin) error {
	x, ops, err := unary(n, in, false)
	if err != nil {
		return err
	}
	if err := noBatch(n, x); err != nil {
		return err
	}
	for _, o := range n.outputs[1:] {
		if o != "" && len(b.reads[o]) > 0 {
			return fmt.Errorf("the mean or inverse deviation output of LayerNormalization is read: %w", ErrUnsupportedOp)
		}
	}
	ax, err := axisOf(n.intAttr("axis", -1), x.s.rank())
	if err != nil {
		return err
	}
	eps := n.floatAttr("epsilon", 1e-5)
	var axes []int
	count := 1
	for a := ax; a < x.s.rank(); a++ {
		axes = append(axes, a)
		count *= int(x.s.dims[a])
	}
	w := 1 / float64(count)
	mean, ms := reduce(x.s, axes, true, w)
	mu := b.emit(n, &nn.Affine{M: mean}, ms, x.v)
	mub, _, err := b.broadcastPair(n, mu, x)
	if err != nil {
		return err
	}
	d := b.emit(n, nn.Add{Negate: true}, x.s, x.v, mub.v)
	sq := b.emit(n, nn.Unary{F: nn.Square}, x.s, d.v)
	vsum, _ := reduce(x.s, axes, true, w)
	v := b.emit(n, &nn.Affine{M: vsum, B: repeat(ms.size(), eps)}, ms, sq.v)
	r := b.emit(n, nn.Unary{F: nn.Sqrt}, ms, v.v)
	r = b.emit(n, nn.Unary{F: nn.Reciprocal}, ms, r.v)
	rb, _, err := b.broadcastPair(n, r, x)
	if err != nil {
		return err
	}
	y := b.emit(n, nn.Mul{}, x.s, d.v, rb.v)
	// scale and bias broadcast along the normalised axes
	_, scale, err := ops.constFloats(1)
	if err != nil {
		return fmt.Errorf("scale: %w", err)
	}
	var bias []float64
	if len(ops.consts) > 2 && ops.consts[2] != nil {
		if _, bias, err = ops.constFloats(2); err != nil {
			return fmt.Errorf("bias: %w", err)
		}
	}
	if (len(scale) != 1 && len(scale) != count) || (bias != nil && len(bias) != 1 && len(bias) != count) {
		return fmt.Errorf("scale of %d and bias of %d values for %d normalised values: %w", len(scale), len(bias), count, ErrShape)
	}
	s, sh := make([]float64, x.s.size()), make([]float64, x.s.size())
	for i := range s {
		j := i % count
		s[i] = at1(scale, j)
		if bias != nil {
			sh[i] = at1(bias, j)
		}
	}
	if err := finite(append(slices.Clone(s), sh...)); err != nil {
		return err
	}
	b.set(n, b.emit(n, &nn.Affine{M: &nn.Scale{S: s}, B: sh}, x.s, y.v))
	return nil
}

// at1 returns v[j], or v[0] for a scalar.
func at1(v []float64, j int) float64 {
	if len(v) == 1 {
		return v[0]
	}
	return v[j]
}
