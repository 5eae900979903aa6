package onnx

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
)

// Structured convolutions. A Conv node becomes an nn.Conv2D; where its
// dense matrix has at most MaxDenseConvEntries entries it is lowered to
// that matrix (Conv2D.Dense), as the consumers that need dense layers (the
// SDP, the writers of other formats) can then read it, and otherwise it
// stays a structured layer (nn.Layer.Conv). An elementwise map after a
// structured convolution that is constant per channel (BatchNormalization,
// a scaling) folds into its kernel and bias, and so does one before it that
// is constant per input channel; any other composition with a structured
// convolution lowers it to a dense matrix, within MaxLoweredEntries.

// MaxDenseConvEntries is the largest dense matrix, in entries, that a Conv
// node is lowered to: 2^20 float64 values, 8 MiB. A larger Conv is read as
// a structured layer.
const MaxDenseConvEntries = 1 << 20

// convMap returns the affine map of the convolution c with one bias per
// output channel (nil: none): dense when small, structured otherwise.
func (b *builder) convMap(c *nn.Conv2D, bias []float64) (*affine, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrShape)
	}
	if err := b.bud.take(c.Out() + len(c.Kernel)); err != nil {
		return nil, err
	}
	a := &affine{in: c.In(), out: c.Out(), b: make([]float64, c.Out())}
	plane := c.OutH * c.OutW
	for m, v := range bias {
		for p := range plane {
			a.b[m*plane+p] = v
		}
	}
	d := b.shape.dims
	if c.Out() <= MaxDenseConvEntries/c.In() {
		dense, err := b.lowered("Conv", c.OutC, [2]int{c.OutH, c.OutW})
		if err != nil {
			return nil, err
		}
		dense.w, dense.b = c.Dense(), a.b
		return dense, nil
	}
	a.conv = c
	b.lowerings = append(b.lowerings, fmt.Sprintf("Conv %dx%dx%d -> %dx%dx%d (structured, %d kernel values)",
		d[1], d[2], d[3], c.OutC, c.OutH, c.OutW, len(c.Kernel)))
	return a, nil
}

// thenStructured returns next(a(x)) when a or next is a structured
// convolution, folding a per-channel elementwise map into it where one is
// next to it and lowering the convolution otherwise.
func (a *affine) thenStructured(next *affine, bud *budget) (*affine, error) {
	if a.conv != nil && next.w == nil && next.conv == nil && uniformPer(next.diag, a.conv.OutC) {
		// y = d (K x + b) + s: scale the kernel of each output channel.
		c := a.conv.Clone()
		per := len(c.Kernel) / c.OutC
		plane := c.OutH * c.OutW
		out := &affine{in: a.in, out: a.out, conv: c, b: make([]float64, a.out)}
		for m := range c.OutC {
			d := next.diag[m*plane]
			for k := m * per; k < (m+1)*per; k++ {
				c.Kernel[k] *= d
			}
		}
		for i := range out.b {
			out.b[i] = next.diag[i]*a.b[i] + next.b[i]
		}
		return out, bud.take(len(c.Kernel) + a.out)
	}
	if next.conv != nil && a.w == nil && a.conv == nil && uniformPer(a.diag, next.conv.InC) {
		// y = K (d x + s) + b = (K diag(d)) x + (K s + b): scale the kernel
		// of each input channel; K s is per output position (padding reads
		// zeros, not s).
		c := next.conv.Clone()
		cg, plane := c.InC/c.Groups, c.InH*c.InW
		per, kk := c.OutC/c.Groups, c.KH*c.KW
		for k := range c.Kernel {
			m, cc := k/(cg*kk), k/kk%cg
			c.Kernel[k] *= a.diag[(m/per*cg+cc)*plane]
		}
		out := &affine{in: a.in, out: next.out, conv: c, b: make([]float64, next.out)}
		next.conv.Apply(out.b, a.b)
		for i := range out.b {
			out.b[i] += next.b[i]
		}
		return out, bud.take(len(c.Kernel) + next.out)
	}
	l, r := a, next
	var err error
	if l, err = l.lowerConv(bud); err != nil {
		return nil, err
	}
	if r, err = r.lowerConv(bud); err != nil {
		return nil, err
	}
	return l.then(r, bud)
}

// lowerConv returns a with a structured convolution replaced by its dense
// matrix, within MaxLoweredEntries.
func (a *affine) lowerConv(bud *budget) (*affine, error) {
	if a.conv == nil {
		return a, nil
	}
	c := a.conv
	if c.Out() > MaxLoweredEntries/c.In() {
		return nil, fmt.Errorf("a convolution of %d outputs and %d inputs composed with a map that is not per channel "+
			"would be a dense matrix of more than %d entries: %w", c.Out(), c.In(), MaxLoweredEntries, ErrTooLarge)
	}
	if err := bud.grant(c.Out() * c.In()); err != nil {
		return nil, err
	}
	if err := bud.take(c.Out() * c.In()); err != nil {
		return nil, err
	}
	return &affine{in: a.in, out: a.out, w: c.Dense(), b: a.b}, nil
}

// uniformPer reports whether diag, of c blocks of equal length, is
// constant on each block.
func uniformPer(diag []float64, c int) bool {
	if len(diag) == 0 || len(diag)%c != 0 {
		return false
	}
	n := len(diag) / c
	for i, v := range diag {
		if v != diag[i/n*n] {
			return false
		}
	}
	return true
}
