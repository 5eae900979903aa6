package onnx

import (
	"fmt"
	"slices"
)

// The sliding windows of Conv and AveragePool over the two spatial axes of
// a tensor [N, C, H, W]. Along an axis of size n with kernel k, stride s,
// dilation d and pads (p0 at the start, p1 at the end), output position o
// reads the input positions
//
//	i = o*s - p0 + t*d,   t = 0, ..., k-1,
//
// those outside [0, n) being padding, and there are
//
//	out = floor((n + p0 + p1 - ((k-1)*d + 1)) / s) + 1
//
// output positions. With auto_pad SAME_UPPER or SAME_LOWER the pads are
// chosen so that out = ceil(n / s), the total pad
// max(0, (out-1)*s + (k-1)*d + 1 - n) split evenly, the odd one at the end
// (SAME_UPPER) or at the start (SAME_LOWER); VALID means no padding.

// window is the geometry of a 2-D sliding window.
type window struct {
	in     [2]int // input size (H, W)
	kernel [2]int
	stride [2]int
	dil    [2]int
	pad    [4]int // [H begin, W begin, H end, W end], the ONNX order
	out    [2]int // output size
}

// spatialOf is spatial for data of shape s.
func spatialOf(s shape, op string) (int, [2]int, error) {
	if s.rank() != 4 || (s.batch != 0 && s.batch != -1) || (s.batch == -1 && s.dims[0] != 1) {
		return 0, [2]int{}, fmt.Errorf("input of shape %v; nnbound reads 2-D %s on [N,C,H,W]: %w", s, op, ErrUnsupportedOp)
	}
	return int(s.dims[1]), [2]int{int(s.dims[2]), int(s.dims[3])}, nil
}

// withSpatial returns the shape [N, c, out[0], out[1]] of s's rank and
// batch axis.
func withSpatial(s shape, c int, out [2]int) shape {
	dims := slices.Clone(s.dims)
	dims[1], dims[2], dims[3] = int64(c), int64(out[0]), int64(out[1])
	return shape{dims: dims, batch: s.batch}
}

// pairAttr returns the 2-element int attribute name, or {def, def}.
func (n *node) pairAttr(name string, def int) ([2]int, error) {
	a := n.attr(name)
	if a == nil {
		return [2]int{def, def}, nil
	}
	if len(a.ints) != 2 {
		return [2]int{}, fmt.Errorf("attribute %s = %v, want 2 values: %w", name, a.ints, ErrUnsupportedOp)
	}
	for _, v := range a.ints {
		if v < 1 || v > 1<<20 {
			return [2]int{}, fmt.Errorf("attribute %s = %v: %w", name, a.ints, ErrShape)
		}
	}
	return [2]int{int(a.ints[0]), int(a.ints[1])}, nil
}

// newWindow reads strides, dilations, pads and auto_pad of n for an input
// of spatial size in and the given kernel, and computes the output size.
func newWindow(n *node, in, kernel [2]int) (window, error) {
	w := window{in: in, kernel: kernel}
	var err error
	if w.stride, err = n.pairAttr("strides", 1); err != nil {
		return w, err
	}
	if w.dil, err = n.pairAttr("dilations", 1); err != nil {
		return w, err
	}
	autoPad := "NOTSET"
	if a := n.attr("auto_pad"); a != nil {
		autoPad = a.s
	}
	switch autoPad {
	case "NOTSET", "":
		if a := n.attr("pads"); a != nil {
			if len(a.ints) != 4 {
				return w, fmt.Errorf("pads = %v, want 4 values: %w", a.ints, ErrShape)
			}
			for i, p := range a.ints {
				if p < 0 || p > 1<<20 {
					return w, fmt.Errorf("pads = %v: %w", a.ints, ErrUnsupportedOp)
				}
				w.pad[i] = int(p)
			}
		}
	case "VALID":
	case "SAME_UPPER", "SAME_LOWER":
		for ax := range 2 {
			out := (in[ax] + w.stride[ax] - 1) / w.stride[ax]
			total := max(0, (out-1)*w.stride[ax]+w.span(ax)-in[ax])
			small, big := total/2, total-total/2
			if autoPad == "SAME_UPPER" {
				w.pad[ax], w.pad[ax+2] = small, big
			} else {
				w.pad[ax], w.pad[ax+2] = big, small
			}
		}
	default:
		return w, fmt.Errorf("auto_pad %q: %w", autoPad, ErrUnsupportedOp)
	}
	for ax := range 2 {
		full := in[ax] + w.pad[ax] + w.pad[ax+2] - w.span(ax)
		if full < 0 {
			return w, fmt.Errorf("kernel %v (dilations %v) is larger than the padded input %v: %w",
				kernel, w.dil, in, ErrShape)
		}
		w.out[ax] = full/w.stride[ax] + 1
	}
	return w, nil
}

// span returns the extent (k-1)*d + 1 of the dilated kernel along ax.
func (w window) span(ax int) int { return (w.kernel[ax]-1)*w.dil[ax] + 1 }
