package onnx

import (
	"fmt"
	"slices"
)

// opConv translates a 2-D Conv,
//
//	Y[m, oh, ow] = B[m] + sum_{c, th, tw} W[m, c, th, tw] X[g*C/G + c, ih, iw]
//
// with g = m / (M/G) the group of output channel m, (ih, iw) the input
// position of output position (oh, ow) at kernel offset (th, tw) (see
// window), and padding reading zeros. It is lowered to a dense affine map
// (lowered.go).
func opConv(b *builder, n *node, ops operands) error {
	if ops.data != 0 {
		return fmt.Errorf("the weight is the chain's data: %w", ErrNotConstant)
	}
	c, in, err := b.spatial("Conv")
	if err != nil {
		return err
	}
	w, wv, err := ops.constFloats(1)
	if err == nil {
		err = finite(wv)
	}
	if err != nil {
		return fmt.Errorf("weight: %w", err)
	}
	if len(w.dims) != 4 {
		return fmt.Errorf("weight of shape %v; nnbound reads 2-D Conv: %w", w.dims, ErrUnsupportedOp)
	}
	for _, d := range w.dims {
		if d < 1 || d > 1<<20 {
			return fmt.Errorf("weight of shape %v: %w", w.dims, ErrShape)
		}
	}
	m, cg, kernel := int(w.dims[0]), int(w.dims[1]), [2]int{int(w.dims[2]), int(w.dims[3])}
	group := n.intAttr("group", 1)
	if group < 1 || int64(c)%group != 0 || int64(m)%group != 0 || int64(cg)*group != int64(c) {
		return fmt.Errorf("weight of shape %v with group %d does not fit %d input channels: %w", w.dims, group, c, ErrShape)
	}
	if ks := n.attr("kernel_shape"); ks != nil && !slices.Equal(ks.ints, w.dims[2:]) {
		return fmt.Errorf("kernel_shape %v but weight of shape %v: %w", ks.ints, w.dims, ErrShape)
	}
	win, err := newWindow(n, in, kernel)
	if err != nil {
		return err
	}
	var bias []float64
	if len(ops.consts) > 2 && ops.consts[2] != nil {
		if _, bias, err = ops.constFloats(2); err == nil {
			err = finite(bias)
		}
		if err != nil {
			return fmt.Errorf("bias: %w", err)
		}
		if len(bias) != m {
			return fmt.Errorf("%d biases for %d output channels: %w", len(bias), m, ErrShape)
		}
	}
	plane := win.out[0] * win.out[1]
	a, err := b.lowered("Conv", m, win.out)
	if err != nil {
		return err
	}
	raw := a.w.RawMatrix()
	perGroup := m / int(group)
	for o := range m {
		g := o / perGroup
		for ci := range cg {
			base := (g*cg + ci) * in[0] * in[1]
			k := (o*cg + ci) * kernel[0] * kernel[1]
			win.each(func(oh, ow, th, tw, ih, iw int) {
				row := o*plane + oh*win.out[1] + ow
				raw.Data[row*raw.Stride+base+ih*in[1]+iw] = wv[k+th*kernel[1]+tw]
			})
		}
		if bias != nil {
			for p := range plane {
				a.b[o*plane+p] = bias[o]
			}
		}
	}
	b.setSpatial(m, win.out)
	return b.applyAffine(a)
}
