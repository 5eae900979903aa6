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
//     variable's own column.
//
// For these relaxOwn writes every entry of the new row directly, with no
// zeroed scratch, and folds the error sum into the same loop. It makes
// the same floating-point operations in the same order as the general
// loop, so its results are equal to the bit (TestRelaxStepFast): an entry
// that the general loop reaches as 0 + p is written as 0 + p (which
// differs from p when p is -0), and the error sum adds the term of every
// column, zero coefficients included, in the order of the columns.

// relaxShape is the shape of a relaxTable that has a specialised step.
type relaxShape int8

const (
	shapeGeneral relaxShape = iota // relaxStep's general loop
	shapeOwn                       // relaxOwn
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
	return shapeGeneral
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

// relaxOwn is relaxStep on a table of shape own with n variables.
func (f *linearForm) relaxOwn(tb *relaxTable, n int, mag []float64, ov *rowSlopes) {
	raw := f.Lam.RawMatrix()
	next := newScratch(raw.Rows, n, false)
	nraw := next.RawMatrix()
	relC, tinyC := 2*float64(tb.maxTerms+1)*outward.Unit, float64(tb.maxTerms)*outward.Tiny
	c, coef, mag := tb.c[:2*n], tb.coef[:2*n], mag[:n]
	sf, dotN := sumFactor(n), raw.Cols
	for r := range raw.Rows {
		row := raw.Data[r*raw.Stride : r*raw.Stride+n]
		out := nraw.Data[r*nraw.Stride : r*nraw.Stride+n]
		s, abs, prodErr := f.C[r], math.Abs(f.C[r]), 0.0
		sr := ov.row(r)
		for i, l := range row {
			var o, a float64
			if l != 0 {
				sl, ok := 0.0, false
				if ov != nil {
					sl, ok = sr.at(i, l >= 0)
				}
				if ok {
					p := l * sl
					o, a = 0+p, math.Abs(p)
				} else {
					e := entry(i, l)
					t := l * c[e]
					s += t
					abs += math.Abs(t)
					p := l * coef[e]
					o, a = 0+p, math.Abs(p)
				}
			}
			out[i] = o
			prodErr += (relC*a + tinyC) * mag[i]
		}
		f.C[r] = s
		f.E[r] = outward.AddUp(f.E[r], outward.AddUp(prodErr*sf, outward.DotErr(abs, dotN)))
	}
	f.replaceLam(next)
}
