package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Bands of rows. A batch of back-substituted rows of neighbouring entries
// of a CHW value has coefficients that are zero outside a band of rows of
// every plane; a convolution or a pool widens the band by its kernel, an
// elementwise node keeps it, a dense map or a selection makes it the
// whole value. Each pending buffer of coefficients carries its band
// (graphback.go), and is zero outside it; merge sums two of them.

// spans returns the ranges of entries of value v on the band a of rows:
// one per channel of a CHW value, the whole value otherwise.
func (w *backWork) spans(v int, a rowBand) [][2]int {
	s := w.b.g.Shape(v)
	if len(s) != 3 {
		return [][2]int{{0, w.b.g.Size(v)}}
	}
	plane := s[1] * s[2]
	sp := make([][2]int, s[0])
	for c := range sp {
		sp[c] = [2]int{c*plane + a.lo*s[2], c*plane + a.hi*s[2]}
	}
	return sp
}

// rowBand is the band [lo, hi) of rows of a value's planes (CHW) outside
// which its coefficients are zero; a value of another shape has one row.
type rowBand struct{ lo, hi int }

// union returns the smallest band holding a and c.
func (a rowBand) union(c rowBand) rowBand { return rowBand{min(a.lo, c.lo), max(a.hi, c.hi)} }

// planeRows returns the number of rows of a value's planes (1 unless it
// is CHW).
func planeRows(shape []int) int {
	if len(shape) == 3 {
		return shape[1]
	}
	return 1
}

// planeRow returns the row of entry i of a value of the shape.
func planeRow(shape []int, i int) int {
	if len(shape) == 3 {
		return i % (shape[1] * shape[2]) / shape[2]
	}
	return 0
}

// fullBand returns every row of a value of the shape.
func fullBand(shape []int) rowBand { return rowBand{0, planeRows(shape)} }

// to returns the band a on a value of shape from carried to a value of
// shape to entry by entry (the same band when the planes have the same
// rows, else every row).
func (a rowBand) to(from, to []int) rowBand {
	if len(from) == 3 && len(to) == 3 && from[1] == to[1] && from[2] == to[2] {
		return a
	}
	return fullBand(to)
}

// poolRows returns the band of input rows the output rows a of a pooling
// read.
func poolRows(p nn.Pool2D, a rowBand) rowBand {
	lo := max(0, a.lo*p.Stride[0]-p.Pad[0])
	hi := min(p.InH, (a.hi-1)*p.Stride[0]-p.Pad[0]+(p.KH-1)*p.Dil[0]+1)
	return rowBand{lo, max(lo, hi)}
}

// merge adds the coefficients add (R x size(v), owned by merge, non-zero
// only on the rows band of v's planes) to those pending on value v.
func (w *backWork) merge(v int, add []float64, band rowBand) {
	cur := w.buf[v]
	if cur == nil {
		w.buf[v], w.band[v] = add, band
		return
	}
	w.addTo(v, add, 1, band)
	w.put(add, w.spans(v, band))
}

// addTo adds sign times add (R x size(v), non-zero only on the rows band
// of v's planes; sign 1 or -1) to the coefficients pending on value v.
func (w *backWork) addTo(v int, add []float64, sign float64, band rowBand) {
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
