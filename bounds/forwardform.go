package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
)

// Linear forms over the input box, for ForwardDiff.
//
// A form is a row a of n0 + 1 float64 values, the function
//
//	x -> a_0 x_0 + ... + a_{n0-1} x_{n0-1} + a_{n0}
//
// of the input, evaluated in exact real arithmetic. A form built from
// others in float64 differs from the exact combination by a rounding error;
// every builder below bounds that error over the box and moves the constant
// by it, outward (up for an upper form, down for a lower one), so a lower
// (upper) form stays below (above) its quantity on the whole box. The error
// bound of a form with coefficients c_{kj} = sum_t w_t a_{tj} (recursive
// summation of m terms) is, by Higham's bound (outward.DotErr),
//
//	sum_j |x_j|max * err_j <= 2 (m + 2) u (sum_t |w_t| M_t + |bias|),
//	M_t = sum_j |a_{tj}| |x_j|max + |a_{t,n0}|,
//
// plus (m + 2) 2^-1074 (sum_j |x_j|max + 1) for products that underflow;
// M_t, the form's magnitude over the box, is kept with every form.

// formSet holds one form per neuron of a layer with its range [lo, hi] on
// the box and its magnitude mag (M above).
type formSet struct {
	a           []float64
	lo, hi, mag []float64
}

// newFormSet returns room for width forms of stride s.
func newFormSet(width, s int) formSet {
	return formSet{a: make([]float64, width*s), lo: make([]float64, width), hi: make([]float64, width), mag: make([]float64, width)}
}

// bound is a lower and an upper form per neuron.
type bound struct{ lower, upper formSet }

// newBound returns room for width neurons' forms of stride s.
func newBound(width, s int) bound { return bound{newFormSet(width, s), newFormSet(width, s)} }

// set returns the lower forms if up is false, the upper ones otherwise.
func (b *bound) set(up bool) *formSet {
	if up {
		return &b.upper
	}
	return &b.lower
}

// boxForms holds the input box and what the form builders need of it.
type boxForms struct {
	lo, hi, mag []float64
	magSum      float64 // sum_j |x_j|max + 1, rounded up
}

// setBox sets the box; the slices lo, hi are not kept.
func (b *boxForms) setBox(lo, hi []float64) {
	b.magSum = 1
	for j := range lo {
		b.lo[j], b.hi[j] = lo[j], hi[j]
		b.mag[j] = max(math.Abs(lo[j]), math.Abs(hi[j]))
		b.magSum = outward.AddUp(b.magSum, b.mag[j])
	}
}

// margin returns the bound of the rounding error of a form built from
// m terms whose weighted magnitudes sum to abs.
func (b *boxForms) margin(abs float64, m int) float64 {
	return outward.DotErr(abs, m) + float64(m+2)*outward.Tiny*b.magSum
}

// finish moves the constant of row by the error bound err (up for an upper
// form) and stores its range and magnitude in fs at neuron i.
func (b *boxForms) finish(fs *formSet, i int, row []float64, err float64, up bool) {
	n0 := len(row) - 1
	if up {
		row[n0] = outward.UpBy(row[n0], err)
	} else {
		row[n0] = outward.DownBy(row[n0], err)
	}
	fs.lo[i], fs.hi[i], fs.mag[i] = b.concretise(row)
}

// concretise returns the range [lo, hi] of the form row on the box and its
// magnitude sum_j |a_j| |x_j|max + |a_{n0}|.
func (b *boxForms) concretise(row []float64) (lo, hi, mag float64) {
	n0 := len(row) - 1
	c := row[n0]
	lo, hi, mag = c, c, math.Abs(c)
	for j, a := range row[:n0] {
		p, q := a*b.lo[j], a*b.hi[j]
		if p > q {
			p, q = q, p
		}
		lo += p
		hi += q
		mag += math.Abs(a) * b.mag[j]
	}
	e := outward.DotErr(mag, n0)
	return outward.DownBy(lo, e), outward.UpBy(hi, e), outward.UpBy(mag, e)
}

// row returns form i of fs (stride s).
func (fs *formSet) row(i, s int) []float64 { return fs.a[i*s : (i+1)*s] }

// accum adds sum_t w_t F_t to dst, F_t the upper form of neuron t of src
// where w_t has the sign of up (+1 for true), its lower form otherwise,
// and returns sum_t |w_t| M_t.
func accum(dst, w []float64, src *bound, up bool) float64 {
	s := len(dst)
	abs := 0.0
	for t, wt := range w {
		if wt == 0 {
			continue
		}
		fs := &src.lower
		if (wt > 0) == up {
			fs = &src.upper
		}
		for j, a := range fs.row(t, s) {
			dst[j] += wt * a
		}
		abs += math.Abs(wt) * fs.mag[t]
	}
	return abs
}

// scaleForm writes the form s src + t to dst (s >= 0, t exact) and returns
// the bound of its rounding error, given src's magnitude mag.
func (b *boxForms) scaleForm(dst, src []float64, sc, t, mag float64) float64 {
	for j, a := range src {
		dst[j] = sc * a
	}
	n0 := len(dst) - 1
	dst[n0] += t
	return b.margin(sc*mag+math.Abs(t), 2)
}

// subForm writes the form a - c to dst and returns the bound of its
// rounding error, given the magnitudes of a and c.
func (b *boxForms) subForm(dst, a, c []float64, magA, magC float64) float64 {
	for j := range dst {
		dst[j] = a[j] - c[j]
	}
	return b.margin(magA+magC, 2)
}

// zeroForm sets dst to the zero form.
func zeroForm(dst []float64) {
	for j := range dst {
		dst[j] = 0
	}
}

// reluUpper writes an upper form of max(0, z) to dst given an upper form
// src of z with range [lo, hi] and magnitude mag, and returns its rounding
// error bound: src itself when lo >= 0, 0 when hi <= 0, else the chord
// lambda (src - lo), lambda = hi / (hi - lo) rounded up.
func (b *boxForms) reluUpper(dst, src []float64, lo, hi, mag float64) float64 {
	if stable(dst, src, lo, hi, true) {
		return 0
	}
	lam := min(1, outward.Up(hi/outward.SubDown(hi, lo)))
	return b.scaleForm(dst, src, lam, outward.MulUp(lam, -lo), mag)
}

// reluLower writes a lower form of max(0, z) to dst given a lower form src
// of z with range [lo, hi]: src when lo >= 0, 0 when hi <= 0, else mu src
// with mu = hi / (hi - lo) in [0, 1] (Neurify's parallel lines; any slope
// in [0, 1] is sound).
func (b *boxForms) reluLower(dst, src []float64, lo, hi, mag float64) float64 {
	if stable(dst, src, lo, hi, true) {
		return 0
	}
	mu := min(1, max(0, hi/(hi-lo)))
	return b.scaleForm(dst, src, mu, 0, mag)
}

// negPartLower writes a lower form of min(0, z) to dst given a lower form
// src of z with range [lo, hi]: 0 when lo >= 0, src when hi <= 0, else the
// chord s (src - hi), s = -lo / (hi - lo) rounded up.
func (b *boxForms) negPartLower(dst, src []float64, lo, hi, mag float64) float64 {
	if stable(dst, src, lo, hi, false) {
		return 0
	}
	sl := min(1, outward.Up(-lo/outward.SubDown(hi, lo)))
	return b.scaleForm(dst, src, sl, outward.MulDown(sl, -hi), mag)
}

// stable handles a form src of range [lo, hi] of one sign: it writes to
// dst src itself where the piece keeps z (z >= 0 when positive, z <= 0
// otherwise), the zero form where it is 0, and reports whether it did.
func stable(dst, src []float64, lo, hi float64, positive bool) bool {
	switch {
	case lo >= 0 && positive, hi <= 0 && !positive:
		copy(dst, src)
	case lo >= 0, hi <= 0:
		zeroForm(dst)
	default:
		return false
	}
	return true
}
