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
	joint, h, nc := tb.shape == shapeJoint, n, 2*n
	if joint {
		h, nc = n/2, 3*n
	}
	next := newScratch(raw.Rows, n, false)
	nraw := next.RawMatrix()
	relC, tinyC := 2*float64(tb.maxTerms+1)*outward.Unit, float64(tb.maxTerms)*outward.Tiny
	// Entry e has its terms at coef[e] (own, z1) or coef[2e-n], coef[2e-n+1] (delta).
	c, coef, mag := tb.c[:2*n], tb.coef[:nc], mag[:n]
	sf, dotN := sumFactor(n), raw.Cols
	for r := range raw.Rows {
		row := raw.Data[r*raw.Stride : r*raw.Stride+n]
		out := nraw.Data[r*nraw.Stride : r*nraw.Stride+n]
		s, abs, prodErr := f.C[r], math.Abs(f.C[r]), 0.0
		sr := ov.row(r)
		rowZ, rowD, outZ, outD, magZ, magD := row[:h], row[h:n], out[:h], out[h:n], mag[:h], mag[h:n]
		for i, l := range rowZ {
			var o, a float64
			if l != 0 {
				sl, ok := 0.0, false
				if ov != nil {
					sl, ok = sr.at(i, l >= 0)
				}
				if ok {
					p := l * sl
					o, a = o+p, a+math.Abs(p)
				} else {
					e := entry(i, l)
					t := l * c[e]
					s += t
					abs += math.Abs(t)
					p := l * coef[e]
					o, a = o+p, a+math.Abs(p)
				}
			}
			if joint {
				if ld := rowD[i]; ld != 0 && !(ov != nil && hasSlope(sr, h+i, ld)) {
					p := ld * coef[2*entry(h+i, ld)-n]
					o, a = o+p, a+math.Abs(p)
				}
			}
			outZ[i] = o
			prodErr += (relC*a + tinyC) * magZ[i]
		}
		for i, l := range rowD {
			var o, a float64
			if l != 0 {
				sl, ok := 0.0, false
				if ov != nil {
					sl, ok = sr.at(h+i, l >= 0)
				}
				if ok {
					p := l * sl
					o, a = o+p, a+math.Abs(p)
				} else {
					e := entry(h+i, l)
					t := l * c[e]
					s += t
					abs += math.Abs(t)
					p := l * coef[2*e-n+1]
					o, a = o+p, a+math.Abs(p)
				}
			}
			outD[i] = o
			prodErr += (relC*a + tinyC) * magD[i]
		}
		f.C[r] = s
		f.E[r] = outward.AddUp(f.E[r], outward.AddUp(prodErr*sf, outward.DotErr(abs, dotN)))
	}
	f.replaceLam(next)
}

// hasSlope reports whether row sr has a slope for variable i under the
// coefficient l.
func hasSlope(sr slopeRow, i int, l float64) bool {
	_, ok := sr.at(i, l >= 0)
	return ok
}
