package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Windows of rows and columns. A batch of back-substituted rows of
// neighbouring entries of a CHW value has coefficients that are zero
// outside a window of rows and columns of every plane; a convolution or a
// pool widens the window by its kernel, an elementwise node keeps it, a
// dense map or a selection makes it the whole value. Each pending buffer
// of coefficients carries its window (graphback.go), and is zero outside
// it; merge sums two of them.

// spans returns the ranges of entries of value v in the window a: one per
// channel of a CHW value where a holds whole rows, one per channel and row
// otherwise, the whole value if v is not CHW. They live in w.spanBuf,
// which batch empties.
func (w *backWork) spans(v int, a window) [][2]int {
	s, start := w.b.g.Shape(v), len(w.spanBuf)
	switch {
	case len(s) != 3:
		w.spanBuf = append(w.spanBuf, [2]int{0, w.b.g.Size(v)})
	case a.clo <= 0 && a.chi >= s[2]:
		plane := s[1] * s[2]
		for c := range s[0] {
			w.spanBuf = append(w.spanBuf, [2]int{c*plane + a.lo*s[2], c*plane + a.hi*s[2]})
		}
	default:
		plane := s[1] * s[2]
		for c := range s[0] {
			for h := a.lo; h < a.hi; h++ {
				w.spanBuf = append(w.spanBuf, [2]int{c*plane + h*s[2] + a.clo, c*plane + h*s[2] + a.chi})
			}
		}
	}
	return w.spanBuf[start:len(w.spanBuf):len(w.spanBuf)]
}

// window is the band [lo, hi) of rows and [clo, chi) of columns of a
// value's planes (CHW) outside which its coefficients are zero; a value of
// another shape has one row and one column.
type window struct{ lo, hi, clo, chi int }

// union returns the smallest window holding a and c.
func (a window) union(c window) window {
	return window{min(a.lo, c.lo), max(a.hi, c.hi), min(a.clo, c.clo), max(a.chi, c.chi)}
}

// entryWindow returns the window of entry i of a value of the shape.
func entryWindow(shape []int, i int) window {
	if len(shape) != 3 {
		return window{0, 1, 0, 1}
	}
	h, c := i%(shape[1]*shape[2])/shape[2], i%shape[2]
	return window{h, h + 1, c, c + 1}
}

// fullBand returns every row and column of a value of the shape.
func fullBand(shape []int) window {
	if len(shape) == 3 {
		return window{0, shape[1], 0, shape[2]}
	}
	return window{0, 1, 0, 1}
}

// to returns the window a on a value of shape from carried to a value of
// shape to entry by entry (the same window when the planes have the same
// rows and columns, else all of them).
func (a window) to(from, to []int) window {
	if len(from) == 3 && len(to) == 3 && from[1] == to[1] && from[2] == to[2] {
		return a
	}
	return fullBand(to)
}

// readSpan returns the inputs [i0, i1) of one dimension (n inputs) that
// the outputs [o0, o1) of a kernel of size k, stride s, padding p and
// dilation d read.
func readSpan(o0, o1, k, s, p, d, n int) (i0, i1 int) {
	i0 = max(0, o0*s-p)
	i1 = min(n, (o1-1)*s-p+(k-1)*d+1)
	return i0, max(i0, i1)
}

// convWindow returns the window of inputs that the outputs in a of the
// convolution c read.
func convWindow(c *nn.Conv2D, a window) window {
	var in window
	in.lo, in.hi = readSpan(a.lo, a.hi, c.KH, c.Stride[0], c.Pad[0], c.Dil[0], c.InH)
	in.clo, in.chi = readSpan(a.clo, a.chi, c.KW, c.Stride[1], c.Pad[1], c.Dil[1], c.InW)
	return in
}

// poolRows returns the window of inputs that the outputs in a of a
// pooling read.
func poolRows(p nn.Pool2D, a window) window {
	var in window
	in.lo, in.hi = readSpan(a.lo, a.hi, p.KH, p.Stride[0], p.Pad[0], p.Dil[0], p.InH)
	in.clo, in.chi = readSpan(a.clo, a.chi, p.KW, p.Stride[1], p.Pad[1], p.Dil[1], p.InW)
	return in
}

// merge adds the coefficients add (R x size(v), owned by merge, non-zero
// only on the window band of v's planes) to those pending on value v.
func (w *backWork) merge(v int, add []float64, band window) {
	cur := w.buf[v]
	if cur == nil {
		w.buf[v], w.band[v] = add, band
		return
	}
	w.addTo(v, add, 1, band)
	w.put(add, w.spans(v, band))
}

// addTo adds sign times add (R x size(v), non-zero only on the window band
// of v's planes; sign 1 or -1) to the coefficients pending on value v.
func (w *backWork) addTo(v int, add []float64, sign float64, band window) {
	cur := w.buf[v]
	w.band[v] = w.band[v].union(band)
	n, mag := len(add)/w.rows, w.b.mags[v]
	sp := w.spans(v, band)
	r0 := 0
	if !w.b.reference {
		r0 = w.addPairs(cur, add, sign, mag, sp)
	}
	for r := r0; r < w.rows; r++ {
		c, a := cur[r*n:(r+1)*n], add[r*n:(r+1)*n]
		err := 0.0
		for _, p := range sp {
			for j := p[0]; j < p[1]; j++ {
				if x := a[j]; x != 0 {
					c[j] += sign * x
					err += math.Abs(c[j]) * mag[j]
				}
			}
		}
		// |fl(a + b) - (a + b)| <= u |fl(a + b)|, doubled for the sum's own rounding.
		w.e[r] = outward.AddUp(w.e[r], outward.MulUp(2*outward.Unit*err, sumFactor(n)))
	}
}

// addPairs is addTo's loop on the rows taken two at a time, so that the
// processor overlaps their sums (each the same as one row at a time); it
// returns the number of rows done.
func (w *backWork) addPairs(cur, add []float64, sign float64, mag []float64, sp [][2]int) int {
	n := len(add) / w.rows
	r := 0
	for ; r+1 < w.rows; r += 2 {
		c0, a0 := cur[r*n:(r+1)*n], add[r*n:(r+1)*n]
		c1, a1 := cur[(r+1)*n:(r+2)*n], add[(r+1)*n:(r+2)*n]
		e0, e1 := 0.0, 0.0
		for _, p := range sp {
			for j := p[0]; j < p[1]; j++ {
				if x := a0[j]; x != 0 {
					c0[j] += sign * x
					e0 += math.Abs(c0[j]) * mag[j]
				}
				if x := a1[j]; x != 0 {
					c1[j] += sign * x
					e1 += math.Abs(c1[j]) * mag[j]
				}
			}
		}
		w.e[r] = outward.AddUp(w.e[r], outward.MulUp(2*outward.Unit*e0, sumFactor(n)))
		w.e[r+1] = outward.AddUp(w.e[r+1], outward.MulUp(2*outward.Unit*e1, sumFactor(n)))
	}
	return r
}
