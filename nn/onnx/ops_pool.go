package onnx

import "fmt"

// opAveragePool translates a 2-D AveragePool: the mean of each window,
// channel by channel. With count_include_pad = 0 (the default) the mean is
// over the window's positions inside the input; with 1 the padding counts
// as zeros, so the sum is divided by the kernel size. ceil_mode = 1 is
// read when it gives the same output size as floor (no window overhangs
// the padded input). It is lowered to a dense affine map (lowered.go).
func opAveragePool(b *builder, n *node, ops operands) error {
	c, in, err := b.spatial("AveragePool")
	if err != nil {
		return err
	}
	ks := n.attr("kernel_shape")
	if ks == nil {
		return fmt.Errorf("no kernel_shape: %w", ErrMalformed)
	}
	kernel, err := n.pairAttr("kernel_shape", 0)
	if err != nil {
		return err
	}
	win, err := newWindow(n, in, kernel)
	if err != nil {
		return err
	}
	if n.intAttr("ceil_mode", 0) != 0 {
		for ax := range 2 {
			full := in[ax] + win.pad[ax] + win.pad[ax+2] - win.span(ax)
			if full%win.stride[ax] != 0 {
				return fmt.Errorf("ceil_mode 1 with a window past the padded input: %w", ErrUnsupportedOp)
			}
		}
	}
	var divisor func(oh, ow int) int
	if n.intAttr("count_include_pad", 0) != 0 {
		divisor = func(int, int) int { return kernel[0] * kernel[1] }
	} else {
		divisor = func(oh, ow int) int { return win.inside(0, oh) * win.inside(1, ow) }
	}
	return b.pool(c, win, divisor)
}

// opGlobalAveragePool translates GlobalAveragePool on [N,C,H,W]: the mean
// of each channel, giving [N,C,1,1].
func opGlobalAveragePool(b *builder, n *node, ops operands) error {
	c, in, err := b.spatial("GlobalAveragePool")
	if err != nil {
		return err
	}
	win := window{in: in, kernel: in, stride: [2]int{1, 1}, dil: [2]int{1, 1}, out: [2]int{1, 1}}
	return b.pool(c, win, func(int, int) int { return in[0] * in[1] })
}

// pool appends the map that averages each window of each of the c
// channels, dividing the window's sum by divisor(oh, ow).
func (b *builder) pool(c int, win window, divisor func(oh, ow int) int) error {
	plane, inPlane := win.out[0]*win.out[1], win.in[0]*win.in[1]
	a, err := b.lowered("AveragePool", c, win.out)
	if err != nil {
		return err
	}
	raw := a.w.RawMatrix()
	for ch := range c {
		win.each(func(oh, ow, th, tw, ih, iw int) {
			row := ch*plane + oh*win.out[1] + ow
			raw.Data[row*raw.Stride+ch*inPlane+ih*win.in[1]+iw] = 1 / float64(divisor(oh, ow))
		})
	}
	b.setSpatial(c, win.out)
	return b.applyAffine(a)
}

// inside returns the number of kernel offsets of output position o along
// ax that read the input, not padding.
func (w window) inside(ax, o int) int {
	k := 0
	for t := range w.kernel[ax] {
		if _, ok := w.at(ax, o, t); ok {
			k++
		}
	}
	return k
}
