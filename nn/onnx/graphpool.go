package onnx

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
)

// gopPool translates MaxPool, AveragePool and GlobalAveragePool on
// [N,C,H,W]: windows with strides, pads, dilations and ceil_mode (the
// last window starting inside the input or its start padding, as ONNX
// says), an nn.MaxPool or an affine nn.AvgPool2D (count_include_pad: the
// divisor is the kernel size, refused with ceil_mode windows past the end
// padding, whose divisor ONNX clips).
func gopPool(b *graphBuilder, n *node, in []gin) error {
	x, _, err := unary(n, in, false)
	if err != nil {
		return err
	}
	c, sp, err := spatialOf(x.s, n.opType)
	if err != nil {
		return err
	}
	if len(n.outputs) > 1 && n.outputs[1] != "" {
		return fmt.Errorf("the Indices output of MaxPool: %w", ErrUnsupportedOp)
	}
	win := window{in: sp, kernel: sp, stride: [2]int{1, 1}, dil: [2]int{1, 1}, out: [2]int{1, 1}}
	over := false
	if n.opType != "GlobalAveragePool" {
		if n.attr("kernel_shape") == nil {
			return fmt.Errorf("no kernel_shape: %w", ErrMalformed)
		}
		kernel, err := n.pairAttr("kernel_shape", 0)
		if err != nil {
			return err
		}
		if win, err = newWindow(n, sp, kernel); err != nil {
			return err
		}
		if n.intAttr("ceil_mode", 0) != 0 {
			over = win.ceil()
		}
	}
	p := nn.Pool2D{C: c, InH: sp[0], InW: sp[1], OutH: win.out[0], OutW: win.out[1], KH: win.kernel[0],
		KW: win.kernel[1], Stride: win.stride, Pad: [2]int{win.pad[0], win.pad[1]}, Dil: win.dil}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%w: %w", err, ErrShape)
	}
	var op nn.Op = &nn.MaxPool{Pool2D: p}
	if n.opType != "MaxPool" {
		countPad := n.intAttr("count_include_pad", 0) != 0
		if countPad && over {
			return fmt.Errorf("count_include_pad with ceil_mode windows past the padding: %w", ErrUnsupportedOp)
		}
		op = &nn.Affine{M: &nn.AvgPool2D{Pool2D: p, CountPad: countPad}}
	}
	b.set(n, b.emit(n, op, withSpatial(x.s, c, win.out), x.v))
	return nil
}

// ceil sets the output size of w as ceil_mode 1 gives it,
//
//	out = ceil((n + p0 + p1 - span) / s) + 1,
//
// less one if the last window would start past the input and its start
// padding, and reports whether a window now reaches past the end padding.
func (w *window) ceil() bool {
	over := false
	for ax := range 2 {
		full := w.in[ax] + w.pad[ax] + w.pad[ax+2] - w.span(ax)
		out := (full+w.stride[ax]-1)/w.stride[ax] + 1
		if (out-1)*w.stride[ax] >= w.in[ax]+w.pad[ax] {
			out--
		}
		if out > w.out[ax] {
			w.out[ax], over = out, true
		}
	}
	return over
}
