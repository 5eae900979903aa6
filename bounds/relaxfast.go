package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
)

// Specialised relaxation steps.
//
// The general relaxStep scatters each bound's terms into a zeroed row and
// a zeroed array of magnitudes, then sums the error over that array. The
// tables back-substitution meets on every node have fixed shapes:
//
//   - own: a network's own lines (lineRelax), one term per bound, in the
//     variable's own column;
//   - joint: the joint level (z1, delta) of a pair (jointRelax) on 2h
//     variables, z1_i's bounds one term in column i and delta_i's two, in
//     columns i and h+i.
//
// For these relaxFast writes every entry of the new row directly, with no
// zeroed scratch, and folds the error sum into the same loops. It makes
// the same floating-point operations in the same order as the general
// loop, so its results are equal to the bit
// (TestRelaxStepFast): an entry that the general loop reaches as 0 + p is
// written as 0 + p (which differs from p when p is -0), and the error sum
// adds the term of every column, zero coefficients included, in the order
// of the columns.

// relaxShape is the shape of a relaxTable that has a specialised step.
type relaxShape int8

const (
	shapeGeneral relaxShape = iota // relaxStep's general loop
	shapeOwn                       // relaxFast, one pass
	shapeJoint                     // relaxFast, two passes
)

// shapeOf returns the shape of the table t of s.
func shapeOf(s stepRelax, t *relaxTable) relaxShape {
	n := len(s.Lower)
	if s.cols != n || n == 0 {
		return shapeGeneral
	}
	// terms reports whether entry e has exactly the terms in columns cols.
	terms := func(e int, cols ...int) bool {
		k := int(t.start[e])
		if int(t.start[e+1])-k != len(cols) {
			return false
		}
		for m, c := range cols {
			if int(t.col[k+m]) != c {
				return false
			}
		}
		return true
	}
	own := true
	for e := range 2 * n {
		own = own && terms(e, e/2)
	}
	if own {
		return shapeOwn
	}
	if n%2 != 0 {
		return shapeGeneral
	}
	h := n / 2
	for e := range 2 * n {
		i := e / 2
		if (i < h && !terms(e, i)) || (i >= h && !terms(e, i-h, i)) {
			return shapeGeneral
		}
	}
	return shapeJoint
}

// entry returns the index in tb of the bound relaxStep takes for variable i
// under the coefficient l: the upper bound (2i) where l >= 0 or NaN, the
// lower one (2i+1) where l < 0, by the sign bit rather than a branch,
// which the random signs of a row would mispredict half the time.
func entry(i int, l float64) int {
	e := 2*i + int(math.Float64bits(l)>>63)
	if l != l {
		e = 2 * i
	}
	return e
}

// relaxFast is relaxStep on a table of shape own or joint with n
// variables. For own it makes one pass over the columns. For joint (z1
// and delta, h = n/2 each) it makes two passes over i < h. The first
// completes column i: z1_i's term, then delta_i's first term (the order of
// the general loop, which reaches column i from z1_i and later from
// delta_i), with its error; it adds the constants of z1 to the sum. The
// second adds the constants of delta and writes column h+i, with its
// error. The sums of constants and of errors thus take their terms in the
// general loop's order.
func (f *linearForm) relaxFast(tb *relaxTable, n int, mag []float64, ov *rowSlopes) {
	raw := f.Lam.RawMatrix()
	fb := &tb.fast
	h := n
	if fb.shape == shapeJoint {
		h = n / 2
	}
	next := newScratch(raw.Rows, n, false)
	nraw := next.RawMatrix()
	relC, tinyC := 2*float64(tb.maxTerms+1)*outward.Unit, float64(tb.maxTerms)*outward.Tiny
	k1 := fastPass{lines: fb.lines, firsts: fb.firsts, slopes: ov != nil, relC: relC, tinyC: tinyC}
	k2 := fastPass{lines: fb.seconds, off: h, slopes: ov != nil, relC: relC, tinyC: tinyC}
	sf, dotN := sumFactor(n), raw.Cols
	mag = mag[:n]
	for r := range raw.Rows {
		row := raw.Data[r*raw.Stride : r*raw.Stride+n]
		out := nraw.Data[r*nraw.Stride : r*nraw.Stride+n]
		sr := ov.row(r)
		s, abs, prodErr := k1.pass(row[:h], row[h:], out[:h], mag[:h], &sr, f.C[r], math.Abs(f.C[r]), 0)
		if fb.shape == shapeJoint {
			s, abs, prodErr = k2.pass(row[h:], nil, out[h:], mag[h:], &sr, s, abs, prodErr)
		}
		f.C[r] = s
		f.E[r] = outward.AddUp(f.E[r], outward.AddUp(prodErr*sf, outward.DotErr(abs, dotN)))
	}
	f.replaceLam(next)
}

// fastPass is one of relaxFast's passes: the variables off+i, whose
// bounds are lines[2i] (upper) and lines[2i+1] (lower); with firsts, also
// the variables off+h+i (h their number) whose bounds' first terms,
// firsts[2i] and firsts[2i+1], are in column i; whether rows have slopes
// and the error factors of relaxStep.
type fastPass struct {
	lines       [][2]float64
	firsts      []float64
	off         int
	slopes      bool
	relC, tinyC float64
}

// pass makes the pass k on one row: the coefficients row of its
// variables (and rowD of the variables of firsts) into the columns out,
// each with its error. s and abs are the sum of constants and of their
// magnitudes, prodErr the error sum; pass returns them updated.
func (k *fastPass) pass(row, rowD, out, mag []float64, sr *slopeRow, s, abs, prodErr float64) (float64, float64, float64) {
	h, off, firsts := len(row), k.off, k.firsts
	out, mag, lines := out[:h], mag[:h], k.lines[:2*h]
	if firsts != nil {
		rowD, firsts = rowD[:h], firsts[:2*h]
	}
	for i, l := range row {
		var o, a float64
		if l != 0 {
			if k.slopes {
				if sl, ok := sr.at(off+i, l >= 0); ok {
					p := l * sl
					o, a = o+p, a+math.Abs(p)
					goto delta // a jump rather than a flag, which costs a store and a load per column
				}
			}
			ln := &lines[side(i, l)]
			t := l * ln[0]
			s += t
			abs += math.Abs(t)
			p := l * ln[1]
			o, a = o+p, a+math.Abs(p)
		}
	delta:
		if firsts != nil {
			if ld := rowD[i]; ld != 0 && !(k.slopes && hasSlope(sr, off+h+i, ld)) {
				p := ld * firsts[side(i, ld)]
				o, a = o+p, a+math.Abs(p)
			}
		}
		out[i] = o
		prodErr += (k.relC*a + k.tinyC) * mag[i]
	}
	return s, abs, prodErr
}

// side returns 2i where l >= 0 and 2i+1 where l < 0, by the sign bit:
// entry without its test for NaN, which relaxFast does not need. A NaN l
// may take either bound; every product with it is NaN alike.
func side(i int, l float64) int { return 2*i + int(math.Float64bits(l)>>63) }

// fastBounds holds the bounds of a table of shape own or joint with n
// variables in the form relaxFast reads: lines[e] = (constant,
// coefficient) for the entries e < 2h of own or z1 variables; for joint,
// firsts[e] and seconds[e] = (constant, coefficient) of the first and the
// second term (columns i and h+i) of entry 2h+e, of delta_i.
type fastBounds struct {
	shape          relaxShape
	lines, seconds [][2]float64
	firsts         []float64
}

// newFastBounds returns the fastBounds of the table t of s (only its shape,
// shapeGeneral, if it has neither shape).
func newFastBounds(s stepRelax, t *relaxTable) fastBounds {
	fb := fastBounds{shape: shapeOf(s, t)}
	if fb.shape == shapeGeneral {
		return fb
	}
	h := len(s.Lower)
	if fb.shape == shapeJoint {
		h /= 2
		fb.firsts, fb.seconds = make([]float64, 2*h), make([][2]float64, 2*h)
		for e := range fb.firsts {
			k := t.start[2*h+e]
			fb.firsts[e], fb.seconds[e] = t.coef[k], [2]float64{t.c[2*h+e], t.coef[k+1]}
		}
	}
	fb.lines = make([][2]float64, 2*h)
	for e := range fb.lines {
		fb.lines[e] = [2]float64{t.c[e], t.coef[t.start[e]]}
	}
	return fb
}

// hasSlope reports whether row sr has a slope for variable i under the
// coefficient l.
func hasSlope(sr *slopeRow, i int, l float64) bool {
	_, ok := sr.at(i, l >= 0)
	return ok
}
