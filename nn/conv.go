package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Conv2D is a 2-D convolution as a structured linear map from a sample of
// InC x InH x InW values to one of OutC x OutH x OutW values, both
// flattened row-major (CHW):
//
//	y[m, oh, ow] = sum_{c, th, tw} K[m, c, th, tw] x[g*Cg + c, ih, iw],
//	ih = oh*Stride[0] - Pad[0] + th*Dil[0],   iw = ow*Stride[1] - Pad[1] + tw*Dil[1],
//
// with Cg = InC/Groups input channels per group, g = m / (OutC/Groups) the
// group of output channel m, and positions outside the input reading zero
// (padding). The padding at the end of each axis is implied by OutH and
// OutW. The kernel K has OutC x Cg x KH x KW values, row-major. A layer
// with a Conv2D (Layer.Conv) has no dense matrix: its map is applied by
// loops over the kernel, never by a matrix of the whole layer.
type Conv2D struct {
	InC, InH, InW    int
	OutC, OutH, OutW int
	KH, KW           int
	Stride, Dil, Pad [2]int
	Groups           int
	Kernel           []float64
}

// In returns the number of inputs, InC*InH*InW.
func (c *Conv2D) In() int { return c.InC * c.InH * c.InW }

// Out returns the number of outputs, OutC*OutH*OutW.
func (c *Conv2D) Out() int { return c.OutC * c.OutH * c.OutW }

// Validate checks the geometry and that every kernel value is finite.
func (c *Conv2D) Validate() error {
	dims := []int{c.InC, c.InH, c.InW, c.OutC, c.OutH, c.OutW, c.KH, c.KW, c.Stride[0], c.Stride[1], c.Dil[0], c.Dil[1], c.Groups}
	for _, d := range dims {
		if d < 1 || d > 1<<24 {
			return fmt.Errorf("nn: convolution of geometry %v: %w", dims, ErrDimension)
		}
	}
	// values of a sample, at most 2^40 (less where int has 32 bits): keeps
	// every product of sizes in an int. The checks multiply in int64.
	const maxSize = int64(min(1<<40, math.MaxInt))
	inHW, outHW, kk := int64(c.InH)*int64(c.InW), int64(c.OutH)*int64(c.OutW), int64(c.KH)*int64(c.KW)
	inC, outC := int64(c.InC), int64(c.OutC)
	if inHW > maxSize/inC || outHW > maxSize/outC || kk > maxSize/inC || kk*inC > maxSize/outC {
		return fmt.Errorf("nn: convolution of geometry %v is too large: %w", dims, ErrDimension)
	}
	if c.Pad[0] < 0 || c.Pad[1] < 0 || c.InC%c.Groups != 0 || c.OutC%c.Groups != 0 {
		return fmt.Errorf("nn: convolution with pads %v, %d groups of %d and %d channels: %w",
			c.Pad, c.Groups, c.InC, c.OutC, ErrDimension)
	}
	if want := c.OutC * c.InC / c.Groups * c.KH * c.KW; len(c.Kernel) != want {
		return fmt.Errorf("nn: convolution kernel has %d values, want %d: %w", len(c.Kernel), want, ErrDimension)
	}
	for i, v := range c.Kernel {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("nn: convolution kernel value %d is %v: %w", i, v, ErrNotFinite)
		}
	}
	return nil
}

// WithKernel returns a convolution of c's geometry with kernel k (not
// copied), for instance the positive part of c's kernel.
func (c *Conv2D) WithKernel(k []float64) *Conv2D {
	d := *c
	d.Kernel = k
	return &d
}

// SameGeometry reports whether c and d differ at most in their kernels.
func (c *Conv2D) SameGeometry(d *Conv2D) bool {
	a, b := c, d
	return a.InC == b.InC && a.InH == b.InH && a.InW == b.InW && a.OutC == b.OutC && a.OutH == b.OutH &&
		a.OutW == b.OutW && a.KH == b.KH && a.KW == b.KW && a.Stride == b.Stride && a.Dil == b.Dil &&
		a.Pad == b.Pad && a.Groups == b.Groups
}

// Clone returns a deep copy of c (nil for nil).
func (c *Conv2D) Clone() *Conv2D {
	if c == nil {
		return nil
	}
	return c.WithKernel(append([]float64(nil), c.Kernel...))
}

// Terms returns the largest number of products in one output, Cg*KH*KW.
func (c *Conv2D) Terms() int { return c.InC / c.Groups * c.KH * c.KW }

// span returns the output positions o in [lo, hi) along axis ax whose
// input position o*stride - pad + t*dil lies inside the input, and that
// input position at o = lo.
func (c *Conv2D) span(ax, t int) (lo, hi, first int) {
	n, out := c.InH, c.OutH
	if ax == 1 {
		n, out = c.InW, c.OutW
	}
	s, off := c.Stride[ax], t*c.Dil[ax]-c.Pad[ax]
	// o*s + off >= 0  <=>  o >= ceil(-off/s);  o*s + off < n  <=>  o <= floor((n-1-off)/s)
	lo = 0
	if off < 0 {
		lo = (-off + s - 1) / s
	}
	hi = out
	if last := n - 1 - off; last < 0 {
		hi = 0
	} else {
		hi = min(out, last/s+1)
	}
	return lo, max(lo, hi), lo*s + off
}

// each calls fn once per kernel value k of output channel m and input
// channel ci at offset (th, tw), with the row spans of span.
func (c *Conv2D) each(fn func(k, m, ci, th, tw int)) {
	cg, per := c.InC/c.Groups, c.OutC/c.Groups
	for m := range c.OutC {
		g := m / per
		for cc := range cg {
			for th := range c.KH {
				for tw := range c.KW {
					fn(((m*cg+cc)*c.KH+th)*c.KW+tw, m, g*cg+cc, th, tw)
				}
			}
		}
	}
}

// Apply sets dst = K x (dst has Out() values, x In()).
func (c *Conv2D) Apply(dst, x []float64) {
	clear(dst[:c.Out()])
	c.accumulate(dst, x, false)
}

// ApplyTransposed sets dst = K^T y (dst has In() values, y Out()): the
// adjoint of Apply, as bound propagation applies it to the rows of its
// back-substituted matrices.
func (c *Conv2D) ApplyTransposed(dst, y []float64) {
	clear(dst[:c.In()])
	c.accumulate(dst, y, true)
}

// accumulate adds K x to y (or, transposed, K^T y to x), where dst is y
// (x) and src is x (y).
func (c *Conv2D) accumulate(dst, src []float64, transposed bool) {
	c.accumulateRows(dst, src, transposed, 0, c.OutH)
}

// accumulateRows is accumulate on the output rows [oh0, oh1) only.
func (c *Conv2D) accumulateRows(dst, src []float64, transposed bool, oh0, oh1 int) {
	inPlane, outPlane := c.InH*c.InW, c.OutH*c.OutW
	sw := c.Stride[1]
	c.each(func(k, m, ci, th, tw int) {
		w := c.Kernel[k]
		if w == 0 {
			return
		}
		h0, h1, ih0 := c.span(0, th)
		w0, w1, iw0 := c.span(1, tw)
		if w0 >= w1 {
			return
		}
		n := w1 - w0
		for oh := max(h0, oh0); oh < min(h1, oh1); oh++ {
			ih := ih0 + (oh-h0)*c.Stride[0]
			o := m*outPlane + oh*c.OutW + w0
			in := ci*inPlane + ih*c.InW + iw0
			if transposed {
				axpy(src[o:o+n], dst[in:in+(n-1)*sw+1], w, sw, true)
			} else {
				axpy(dst[o:o+n], src[in:in+(n-1)*sw+1], w, sw, false)
			}
		}
	})
}

// AddRow adds scale times row i of c's matrix to dst (In() values),
// touching only the row's non-zero entries.
func (c *Conv2D) AddRow(dst []float64, i int, scale float64) {
	outPlane, inPlane := c.OutH*c.OutW, c.InH*c.InW
	m, oh, ow := i/outPlane, i%outPlane/c.OutW, i%c.OutW
	cg := c.InC / c.Groups
	first := m / (c.OutC / c.Groups) * cg
	for cc := range cg {
		for th := range c.KH {
			ih := oh*c.Stride[0] - c.Pad[0] + th*c.Dil[0]
			if ih < 0 || ih >= c.InH {
				continue
			}
			for tw := range c.KW {
				iw := ow*c.Stride[1] - c.Pad[1] + tw*c.Dil[1]
				if iw < 0 || iw >= c.InW {
					continue
				}
				dst[(first+cc)*inPlane+ih*c.InW+iw] += scale * c.Kernel[((m*cg+cc)*c.KH+th)*c.KW+tw]
			}
		}
	}
}

// Abs returns the convolution of c's geometry with kernel |K|.
func (c *Conv2D) Abs() *Conv2D {
	k := make([]float64, len(c.Kernel))
	for i, v := range c.Kernel {
		k[i] = math.Abs(v)
	}
	return c.WithKernel(k)
}

// axpy adds w x[j*stride] to y[j] for every j, or, transposed, w y[j] to
// x[j*stride].
func axpy(y, x []float64, w float64, stride int, transposed bool) {
	switch {
	case stride == 1 && !transposed:
		x = x[:len(y)]
		for j, v := range x {
			y[j] += w * v
		}
	case stride == 1:
		x = x[:len(y)]
		for j, v := range y {
			x[j] += w * v
		}
	case !transposed:
		for j := range y {
			y[j] += w * x[j*stride]
		}
	default:
		for j, v := range y {
			x[j*stride] += w * v
		}
	}
}

// Dense returns the Out() x In() matrix of c. It is for small
// convolutions (tests, writers of formats without convolutions): the
// matrix has Out()*In() entries.
func (c *Conv2D) Dense() *mat.Dense {
	w := mat.NewDense(c.Out(), c.In(), nil)
	raw := w.RawMatrix()
	inPlane, outPlane := c.InH*c.InW, c.OutH*c.OutW
	c.each(func(k, m, ci, th, tw int) {
		h0, h1, ih0 := c.span(0, th)
		w0, w1, iw0 := c.span(1, tw)
		for oh := h0; oh < h1; oh++ {
			ih := ih0 + (oh-h0)*c.Stride[0]
			for ow := w0; ow < w1; ow++ {
				iw := iw0 + (ow-w0)*c.Stride[1]
				raw.Data[(m*outPlane+oh*c.OutW+ow)*raw.Stride+ci*inPlane+ih*c.InW+iw] += c.Kernel[k]
			}
		}
	})
	return w
}

// ConvLayer returns the layer act(conv(x) + b) with one bias per output
// channel, spread over the channel's positions.
func ConvLayer(c *Conv2D, bias []float64, act Activation) (Layer, error) {
	if err := c.Validate(); err != nil {
		return Layer{}, err
	}
	if bias != nil && len(bias) != c.OutC {
		return Layer{}, fmt.Errorf("nn: %d biases for %d output channels: %w", len(bias), c.OutC, ErrDimension)
	}
	b := make([]float64, c.Out())
	plane := c.OutH * c.OutW
	for m, v := range bias {
		for p := range plane {
			b[m*plane+p] = v
		}
	}
	return Layer{Conv: c, B: b, Act: act}, nil
}
