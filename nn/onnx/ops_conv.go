package onnx

import (
	"fmt"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// convOf returns the convolution of a Conv node on data of shape x and its
// bias per output channel (nil: none).
func convOf(x shape, n *node, ops operands) (*nn.Conv2D, []float64, error) {
	if ops.data != 0 {
		return nil, nil, fmt.Errorf("the weight is a computed tensor: %w", ErrNotConstant)
	}
	c, in, err := spatialOf(x, "Conv")
	if err != nil {
		return nil, nil, err
	}
	w, wv, err := ops.constFloats(1)
	if err == nil {
		err = finite(wv)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("weight: %w", err)
	}
	if len(w.dims) != 4 {
		return nil, nil, fmt.Errorf("weight of shape %v; nnbound reads 2-D Conv: %w", w.dims, ErrUnsupportedOp)
	}
	for _, d := range w.dims {
		if d < 1 || d > 1<<20 {
			return nil, nil, fmt.Errorf("weight of shape %v: %w", w.dims, ErrShape)
		}
	}
	m, cg, kernel := int(w.dims[0]), int(w.dims[1]), [2]int{int(w.dims[2]), int(w.dims[3])}
	group := n.intAttr("group", 1)
	if group < 1 || int64(c)%group != 0 || int64(m)%group != 0 || int64(cg)*group != int64(c) {
		return nil, nil, fmt.Errorf("weight of shape %v with group %d does not fit %d input channels: %w", w.dims, group, c, ErrShape)
	}
	if ks := n.attr("kernel_shape"); ks != nil && !slices.Equal(ks.ints, w.dims[2:]) {
		return nil, nil, fmt.Errorf("kernel_shape %v but weight of shape %v: %w", ks.ints, w.dims, ErrShape)
	}
	win, err := newWindow(n, in, kernel)
	if err != nil {
		return nil, nil, err
	}
	var bias []float64
	if len(ops.consts) > 2 && ops.consts[2] != nil {
		if _, bias, err = ops.constFloats(2); err == nil {
			err = finite(bias)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("bias: %w", err)
		}
		if len(bias) != m {
			return nil, nil, fmt.Errorf("%d biases for %d output channels: %w", len(bias), m, ErrShape)
		}
	}
	conv := &nn.Conv2D{InC: c, InH: in[0], InW: in[1], OutC: m, OutH: win.out[0], OutW: win.out[1],
		KH: kernel[0], KW: kernel[1], Stride: win.stride, Dil: win.dil, Pad: [2]int{win.pad[0], win.pad[1]},
		Groups: int(group), Kernel: wv}
	return conv, bias, nil
}
