package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Structured (convolutional) layers, nn.Layer.Conv. Their linear map is
// applied by loops over the kernel: interval arithmetic splits the kernel
// into its positive and negative parts, back-substitution applies the
// transposed map to each row of its matrix, and no dense matrix of the
// layer is built. Rounding is bounded as for a dense layer: a sum of the
// n = In() terms of a row, in whatever order, plus the bias.

// signParts returns the convolutions with the positive and the negative
// parts of c's kernel.
func signParts(c *nn.Conv2D) (pos, neg *nn.Conv2D) {
	p, n := make([]float64, len(c.Kernel)), make([]float64, len(c.Kernel))
	for i, v := range c.Kernel {
		if v > 0 {
			p[i] = v
		} else {
			n[i] = v
		}
	}
	return c.WithKernel(p), c.WithKernel(n)
}

// convBox returns, for the box x, the lower and upper ends of the
// convolution c applied to it and the sums of the magnitudes of the terms
// of each (|min(w x_lo, w x_hi)| and |max(...)| summed over the row).
func convBox(c *nn.Conv2D, x []Interval) (lo, hi, absLo, absHi []float64) {
	n := c.In()
	xl, xh, al, ah := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for j, v := range x {
		xl[j], xh[j], al[j], ah[j] = v.Lo, v.Hi, math.Abs(v.Lo), math.Abs(v.Hi)
	}
	pos, neg := signParts(c)
	lo, hi, absLo, absHi = applySum(pos, neg, xl, xh), applySum(pos, neg, xh, xl), applySum(pos, neg.Abs(), al, ah), applySum(pos, neg.Abs(), ah, al)
	return lo, hi, absLo, absHi
}

// applySum returns a u + b v.
func applySum(a, b *nn.Conv2D, u, v []float64) []float64 {
	out, t := make([]float64, a.Out()), make([]float64, a.Out())
	a.Apply(out, u)
	b.Apply(t, v)
	for i := range out {
		out[i] += t[i]
	}
	return out
}

// affineConv is affine for a structured layer.
func affineConv(l nn.Layer, x []Interval, r []float64) []Interval {
	lo, hi, absLo, absHi := convBox(l.Conv, x)
	n := l.In() + 2
	out := make([]Interval, len(lo))
	for i := range out {
		b := l.B[i]
		out[i] = Interval{outward.DownBy(lo[i]+b, outward.DotErr(absLo[i]+math.Abs(b), n)),
			outward.UpBy(hi[i]+b, outward.DotErr(absHi[i]+math.Abs(b), n))}
		if r != nil {
			out[i] = Interval{outward.SubDown(out[i].Lo, r[i]), outward.AddUp(out[i].Hi, r[i])}
		}
	}
	return out
}

// layerRows returns the form t_r = sign[r] (W_{rows[r]} v + b_{rows[r]})
// of newFormRows for a layer, dense or structured.
func layerRows(l nn.Layer, rows []int, sign []float64) *linearForm {
	if l.Conv == nil {
		return newFormRows(l.W, l.B, rows, sign)
	}
	if rows == nil {
		rows = make([]int, l.Out())
		for i := range rows {
			rows[i] = i
		}
	}
	f := newZeroForm(len(rows), l.In())
	for r, t := range rows {
		sg := 1.0
		if sign != nil {
			sg = sign[r]
		}
		l.AddRow(f.Lam.RawRowView(r), t, sg)
		f.C[r] = sg * l.B[t]
	}
	return f
}

// convDiffApply is layerDiff.apply for structured layers: an enclosure of
// K dx + (K2 - K1) x + (b2 - b1) per output, with d.dW and d.rW the
// kernel's difference and its radius.
func (d *layerDiff) convApply(c *nn.Conv2D, dx, x []Interval) []Interval {
	dk := c.WithKernel(d.dW)
	lo, hi, _, _ := convBox(dk, x)
	mx := mags(x)
	abs := make([]float64, len(lo))
	dk.Abs().Apply(abs, mx)
	if !allZero(dx) {
		l2, h2, _, _ := convBox(c, dx)
		a2 := make([]float64, len(lo))
		c.Abs().Apply(a2, mags(dx))
		for i := range lo {
			lo[i], hi[i], abs[i] = lo[i]+l2[i], hi[i]+h2[i], abs[i]+a2[i]
		}
	}
	var extra []float64
	if d.rW != nil {
		extra = make([]float64, len(lo))
		c.WithKernel(d.rW).Apply(extra, mx)
	}
	out := make([]Interval, len(lo))
	for i := range out {
		e := 0.0
		if extra != nil {
			e = extra[i]
		}
		if d.rB != nil {
			e += d.rB[i]
		}
		e = outward.MulUp(e, sumFactor(c.In()))
		m := e + outward.DotErr(abs[i]+math.Abs(d.dB[i])+e, 3*d.cols)
		out[i] = Interval{outward.DownBy(lo[i]+d.dB[i], m), outward.UpBy(hi[i]+d.dB[i], m)}
	}
	return out
}

// hasStructured reports whether a layer of f below k+1 is structured.
func hasStructured(f *nn.Network, k int) bool {
	for _, l := range f.Layers[:min(k+1, len(f.Layers))] {
		if l.Conv != nil {
			return true
		}
	}
	return false
}

// newZeroForm returns the form of rows targets on cols variables with
// all coefficients zero.
func newZeroForm(rows, cols int) *linearForm {
	return &linearForm{Lam: newScratch(rows, cols, true), C: make([]float64, rows), E: make([]float64, rows)}
}

// jointConv is the linear part of the substitution of a structured layer
// in the joint variables (pairprop.go),
//
//	[xi1; xi2 - xi1] = [[K1, 0], [K2 - K1, K2]] [z1; delta],
//
// with K2 - K1 the kernel difference (the radius of its rounding is added
// separately, addRadiusCols).
type jointConv struct{ c1, dk, c2 *nn.Conv2D }

// In returns the number of joint variables below, 2 In().
func (j *jointConv) In() int { return 2 * j.c1.In() }

// Out returns the number of joint variables above, 2 Out().
func (j *jointConv) Out() int { return 2 * j.c1.Out() }

// MulAbsVec sets dst = |J| x.
func (j *jointConv) MulAbsVec(dst, x []float64) {
	m, n := j.c1.In(), j.c1.Out()
	j.c1.Abs().Apply(dst[:n], x[:m])
	t := make([]float64, n)
	j.dk.Abs().Apply(dst[n:2*n], x[:m])
	j.c2.Abs().Apply(t, x[m:])
	for i, v := range t {
		dst[n+i] += v
	}
}

// MulTransVec sets dst = J^T y.
func (j *jointConv) MulTransVec(dst, y []float64) {
	m, n := j.c1.In(), j.c1.Out()
	t := make([]float64, m)
	j.c1.ApplyTransposed(dst[:m], y[:n])
	j.dk.ApplyTransposed(t, y[n:])
	for i, v := range t {
		dst[i] += v
	}
	j.c2.ApplyTransposed(dst[m:2*m], y[n:])
}

// diffRows returns the form sign[r] (xi2^k - xi1^k)_{rows[r]} on the
// joint variables of level k-1 for a structured layer k: row i is
// [(K2 - K1)_i, (K2)_i] and the constant (b2 - b1)_i (diffTarget's rows).
func (pp *pairProp) diffRows(k int, rows []int, sign []float64) *linearForm {
	dl, l2 := pp.diffs[k], pp.f2.Layers[k]
	dk := l2.Conv.WithKernel(dl.dW)
	m := l2.In()
	f := newZeroForm(len(rows), 2*m)
	for r, t := range rows {
		sg := 1.0
		if sign != nil {
			sg = sign[r]
		}
		row := f.Lam.RawRowView(r)
		dk.AddRow(row[:m], t, sg)
		l2.Conv.AddRow(row[m:], t, sg)
		f.C[r] = sg * dl.dB[t]
	}
	return f
}
