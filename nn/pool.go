package nn

import (
	"fmt"
	"math"
)

// Pool2D is the geometry of a 2-D pooling over C channels of InH x InW
// values (flattened row-major, CHW): output (c, oh, ow) reads the window
//
//	ih = oh*Stride[0] - Pad[0] + th*Dil[0],  iw = ow*Stride[1] - Pad[1] + tw*Dil[1],
//
// th < KH, tw < KW, of channel c; positions outside the input are padding.
type Pool2D struct {
	C, InH, InW, OutH, OutW int
	KH, KW                  int
	Stride, Pad, Dil        [2]int
}

// In returns the number of inputs, C*InH*InW.
func (p *Pool2D) In() int { return p.C * p.InH * p.InW }

// Out returns the number of outputs, C*OutH*OutW.
func (p *Pool2D) Out() int { return p.C * p.OutH * p.OutW }

// Validate checks the geometry: positive sizes, and every window holding
// at least one input position.
func (p *Pool2D) Validate() error {
	for _, d := range []int{p.C, p.InH, p.InW, p.OutH, p.OutW, p.KH, p.KW, p.Stride[0], p.Stride[1], p.Dil[0], p.Dil[1]} {
		if d < 1 || d > 1<<24 {
			return fmt.Errorf("nn: pooling of geometry %+v: %w", *p, ErrDimension)
		}
	}
	if p.Pad[0] < 0 || p.Pad[1] < 0 || int64(p.C)*int64(p.InH)*int64(p.InW) > 1<<40 {
		return fmt.Errorf("nn: pooling of geometry %+v: %w", *p, ErrDimension)
	}
	for o := range p.OutH * p.OutW {
		if len(p.Window(o, nil)) == 0 {
			return fmt.Errorf("nn: pooling window %d of geometry %+v is all padding: %w", o, *p, ErrDimension)
		}
	}
	return nil
}

// Window appends to dst the input positions (within one channel plane,
// ih*InW + iw) of the window of output position o = oh*OutW + ow, padding
// left out, and returns it.
func (p *Pool2D) Window(o int, dst []int) []int {
	oh, ow := o/p.OutW, o%p.OutW
	for th := range p.KH {
		ih := oh*p.Stride[0] - p.Pad[0] + th*p.Dil[0]
		if ih < 0 || ih >= p.InH {
			continue
		}
		for tw := range p.KW {
			iw := ow*p.Stride[1] - p.Pad[1] + tw*p.Dil[1]
			if iw >= 0 && iw < p.InW {
				dst = append(dst, ih*p.InW+iw)
			}
		}
	}
	return dst
}

// windows returns the windows of every output position of a plane.
func (p *Pool2D) windows() [][]int {
	w := make([][]int, p.OutH*p.OutW)
	for o := range w {
		w[o] = p.Window(o, nil)
	}
	return w
}

// AvgPool2D is average pooling as a linear map: each output the mean of
// its window, over the window's input positions, or, with CountPad, over
// all KH*KW positions (padding counted as zeros): ONNX's
// count_include_pad.
type AvgPool2D struct {
	Pool2D
	CountPad bool
}

// weight returns the weight of each input of a window of n inputs.
func (a *AvgPool2D) weight(n int) float64 {
	if a.CountPad {
		return 1 / float64(a.KH*a.KW)
	}
	return 1 / float64(n)
}

// Apply sets dst to the window means of x.
func (a *AvgPool2D) Apply(dst, x []float64) {
	in, out := a.InH*a.InW, a.OutH*a.OutW
	var win []int
	for o := range out {
		win = a.Window(o, win[:0])
		w := a.weight(len(win))
		for c := range a.C {
			s := 0.0
			for _, j := range win {
				s += x[c*in+j]
			}
			dst[c*out+o] = s * w
		}
	}
}

// ApplyTransposed sets dst = A^T y: each output's weight spread over its
// window.
func (a *AvgPool2D) ApplyTransposed(dst, y []float64) {
	in, out := a.InH*a.InW, a.OutH*a.OutW
	clear(dst[:a.In()])
	var win []int
	for o := range out {
		win = a.Window(o, win[:0])
		w := a.weight(len(win))
		for c := range a.C {
			v := y[c*out+o] * w
			for _, j := range win {
				dst[c*in+j] += v
			}
		}
	}
}

// AbsMap returns a: its entries are not negative.
func (a *AvgPool2D) AbsMap() Linear { return a }

// MaxPool is 2-D max pooling: each output the largest value of its window
// (padding never wins, as in ONNX).
type MaxPool struct{ Pool2D }

// Eval sets dst to the window maxima of in[0].
func (m *MaxPool) Eval(dst []float64, in [][]float64) {
	x := in[0]
	inPlane, out := m.InH*m.InW, m.OutH*m.OutW
	var win []int
	for o := range out {
		win = m.Window(o, win[:0])
		for c := range m.C {
			best := math.Inf(-1)
			for _, j := range win {
				best = max(best, x[c*inPlane+j])
			}
			dst[c*out+o] = best
		}
	}
}

// Describe returns "maxpool 2x2/2".
func (m *MaxPool) Describe() string {
	return fmt.Sprintf("maxpool %dx%d/%d", m.KH, m.KW, m.Stride[0])
}

// Windows returns, for each output value (CHW), the input values of its
// window (indices into the flattened input).
func (m *MaxPool) Windows() [][]int {
	plane := m.windows()
	inPlane, out := m.InH*m.InW, m.OutH*m.OutW
	all := make([][]int, m.C*out)
	for c := range m.C {
		for o, win := range plane {
			w := make([]int, len(win))
			for k, j := range win {
				w[k] = c*inPlane + j
			}
			all[c*out+o] = w
		}
	}
	return all
}
