package bounds

import (
	"math"
	"slices"
	"sync"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

// Back-substitution with rigorous rounding.
//
// A linear form bounds target values t_r from above in terms of the
// variables v of one level (a layer's outputs, or the network's inputs):
//
//	t_r <= sum_i Lam[r,i] v_i + C[r] + E[r]     for all reachable v,
//
// where Lam and C are float64 and E >= 0 absorbs the rounding error of every
// step that produced them, so the inequality holds for the exact reals.
// Lower bounds are upper bounds of -t. The steps are:
//
//   - relaxStep: replace each v_i = phi(xi_i) by its upper relaxation line
//     where Lam[r,i] >= 0 and its lower one where Lam[r,i] < 0;
//   - affineLayer: replace xi = W u + b by the layer below;
//   - concretise: maximise over a box of v.
//
// A float64 product p = fl(x y) satisfies |p - x y| <= u |p| + outward.Tiny (u =
// 2^-53); a matrix product computed in any summation order satisfies
// |fl(Lam W) - Lam W| <= gamma_n |Lam| |W| (Higham, eq. 3.13). The margins
// below double these to cover the rounding of the margins themselves.
type linearForm struct {
	Lam  *mat.Dense
	C, E []float64
}

// newForm returns the form t = W v + b (no error yet); with neg, t = -(W v + b).
func newForm(w *mat.Dense, b []float64, neg bool) *linearForm {
	r, _ := w.Dims()
	f := &linearForm{Lam: mat.DenseCopyOf(w), C: append([]float64(nil), b...), E: make([]float64, r)}
	if neg {
		f.Lam.Scale(-1, f.Lam)
		for i := range f.C {
			f.C[i] = -f.C[i]
		}
	}
	return f
}

// newFormRows returns the form t_r = sign[r] (W_{rows[r]} v + b_{rows[r]})
// (every row of W when rows is nil; sign +1 when sign is nil). rows must
// not be empty.
func newFormRows(w *mat.Dense, b []float64, rows []int, sign []float64) *linearForm {
	if rows == nil {
		r, _ := w.Dims()
		rows = make([]int, r)
		for i := range rows {
			rows[i] = i
		}
	}
	raw := w.RawMatrix()
	f := &linearForm{Lam: newScratch(len(rows), raw.Cols, false), C: make([]float64, len(rows)), E: make([]float64, len(rows))}
	lr := f.Lam.RawMatrix()
	for r, t := range rows {
		sg := 1.0
		if sign != nil {
			sg = sign[r]
		}
		src := raw.Data[t*raw.Stride : t*raw.Stride+raw.Cols]
		dst := lr.Data[r*lr.Stride : r*lr.Stride+raw.Cols]
		for i, v := range src {
			dst[i] = sg * v
		}
		f.C[r] = sg * b[t]
	}
	return f
}

// concretise returns upper bounds of the targets over the box v.
func (f *linearForm) concretise(v []Interval) []float64 {
	raw := f.Lam.RawMatrix()
	out := make([]float64, raw.Rows)
	v = v[:raw.Cols]
	for r := range out {
		row := raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols]
		s, abs := f.C[r], math.Abs(f.C[r])
		for i, l := range row {
			t := max(l*v[i].Lo, l*v[i].Hi)
			s += t
			abs += math.Abs(t)
		}
		out[r] = outward.UpBy(s, outward.AddUp(f.E[r], outward.DotErr(abs, raw.Cols)))
	}
	return out
}

// term is coef * v_col for a variable v of the level below a relaxation.
type term struct {
	col  int
	coef float64
}

// affineBound is the affine function sum of terms + C.
type affineBound struct {
	terms []term
	C     float64
}

// stepRelax holds, per variable v_i of a level, affine functions Lower[i]
// <= v_i <= Upper[i] of the variables of the level below (the
// pre-activations, possibly with other quantities such as differences).
type stepRelax struct {
	Lower, Upper []affineBound
	cols         int // number of variables of the level below
	// table holds Lower and Upper packed for relaxStep (packed; nil: not
	// yet, relaxStep packs them for itself).
	table *relaxTable
}

// packed returns s with its bounds packed for relaxStep; Lower and Upper
// must not change after.
func (s stepRelax) packed() stepRelax {
	s.table = newRelaxTable(s)
	return s
}

// relaxTable is a stepRelax in flat arrays, in the order relaxStep reads
// them: entry e = 2i is the upper bound of variable i, e = 2i+1 its lower
// bound; its constant is c[e] and its terms are col[k], coef[k] for k in
// [start[e], start[e+1]), in the order of the bound's terms. Choosing the
// entry by the sign of a coefficient is then arithmetic rather than a
// branch, and the terms of all bounds are contiguous.
type relaxTable struct {
	c        []float64
	start    []int32
	col      []int32
	coef     []float64
	maxTerms int        // the most terms of any bound, at least 1
	fast     fastBounds // the bounds as relaxFast reads them, if it can
}

// newRelaxTable packs the bounds of s.
func newRelaxTable(s stepRelax) *relaxTable {
	n, terms := len(s.Lower), 0
	for i := range n {
		terms += len(s.Upper[i].terms) + len(s.Lower[i].terms)
	}
	t := &relaxTable{c: make([]float64, 2*n), start: make([]int32, 2*n+1),
		col: make([]int32, 0, terms), coef: make([]float64, 0, terms), maxTerms: 1}
	for i := range n {
		for side, b := range [2]*affineBound{&s.Upper[i], &s.Lower[i]} {
			e := 2*i + side
			t.c[e] = b.C
			for _, tm := range b.terms {
				t.col = append(t.col, int32(tm.col))
				t.coef = append(t.coef, tm.coef)
			}
			t.start[e+1] = int32(len(t.col))
			t.maxTerms = max(t.maxTerms, len(b.terms))
		}
	}
	t.fast = newFastBounds(s, t)
	return t
}

// lineRelax returns the stepRelax of a single network's relaxation lines:
// v_i = phi(xi_i) between lines in xi_i.
func lineRelax(rel relaxation) stepRelax {
	n := len(rel.Lower)
	s := stepRelax{Lower: make([]affineBound, n), Upper: make([]affineBound, n), cols: n}
	terms := make([]term, 2*n)
	for i := range n {
		terms[2*i], terms[2*i+1] = term{i, rel.Lower[i].A}, term{i, rel.Upper[i].A}
		s.Lower[i] = affineBound{terms[2*i : 2*i+1 : 2*i+1], rel.Lower[i].C}
		s.Upper[i] = affineBound{terms[2*i+1 : 2*i+2 : 2*i+2], rel.Upper[i].C}
	}
	return s.packed()
}

// relaxStep replaces each variable v_i by its upper bound where Lam[r,i] >=
// 0 and by its lower bound where Lam[r,i] < 0; the variables below have
// |w_j| <= mag[j]. Each new coefficient is a sum of at most maxTerms
// products, so its rounding error is at most 2 (maxTerms+1) u times the sum
// of their magnitudes, plus underflow.
//
// With ov not nil, row r uses the line a v_i through the origin wherever
// ov.row(r).at(i) gives a slope a for the side chosen (rowSlopes).
func (f *linearForm) relaxStep(rel stepRelax, mag []float64, ov *rowSlopes) {
	raw := f.Lam.RawMatrix()
	tb := rel.table
	if tb == nil {
		tb = newRelaxTable(rel)
	}
	if n := len(rel.Lower); raw.Cols == n && tb.fast.shape != shapeGeneral {
		f.relaxFast(tb, n, mag, ov)
		return
	}
	next := newScratch(raw.Rows, rel.cols, true)
	nraw := next.RawMatrix()
	absNew := getFloats(rel.cols, false)
	defer putFloats(absNew)
	relC, tinyC := 2*float64(tb.maxTerms+1)*outward.Unit, float64(tb.maxTerms)*outward.Tiny
	c, start := tb.c[:2*len(rel.Lower)], tb.start[:2*len(rel.Lower)+1]
	for r := range raw.Rows {
		row := raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols]
		out := nraw.Data[r*nraw.Stride : r*nraw.Stride+rel.cols]
		clear(absNew)
		s, abs := f.C[r], math.Abs(f.C[r])
		sr := ov.row(r)
		for i, l := range row {
			if l == 0 {
				continue
			}
			if ov != nil {
				if a, ok := sr.at(i, l >= 0); ok {
					p := l * a
					out[i] += p
					absNew[i] += math.Abs(p)
					continue
				}
			}
			e := entry(i, l)
			t := l * c[e]
			s += t
			abs += math.Abs(t)
			for k := start[e]; k < start[e+1]; k++ {
				p := l * tb.coef[k]
				j := tb.col[k]
				out[j] += p
				absNew[j] += math.Abs(p)
			}
		}
		prodErr := 0.0
		for j, a := range absNew {
			prodErr += (relC*a + tinyC) * mag[j]
		}
		f.C[r] = s
		f.E[r] = outward.AddUp(f.E[r], outward.AddUp(prodErr*sumFactor(rel.cols), outward.DotErr(abs, raw.Cols)))
	}
	f.replaceLam(next)
}

// addNoise adds to the error of each target row r its noise r[rows[r]]
// (rows nil: r[r]; noise nil: nothing): the target is W v + b + e with
// |e| <= noise.
func (f *linearForm) addNoise(noise []float64, rows []int) {
	if noise == nil {
		return
	}
	for r := range f.E {
		t := r
		if rows != nil {
			t = rows[r]
		}
		f.E[r] = outward.AddUp(f.E[r], noise[t])
	}
}

// affineLayer replaces xi = W v + b + e, where |v_j| <= mag[j] and |e_i| <=
// noise[i] (noise nil: e = 0), for the layer l, dense or structured (whose
// transposed map is applied to each row of Lam).
func (f *linearForm) affineLayer(l nn.Layer, noise []float64, mag []float64, cache *absProduct) {
	f.affineMap(l, l.B, noise, mag, l.W, cache)
}

// linearMap is the linear part of a level that back-substitution steps
// through: a layer (nn.Layer) or the joint map of two structured layers
// (jointConv).
type linearMap interface {
	In() int
	Out() int
	MulAbsVec(dst, x []float64)
	MulTransVec(dst, y []float64)
}

// affineMap is affineLayer for the map xi = W v + b + e with the linear
// part w; dense, if not nil, is its matrix, multiplied by gonum.
func (f *linearForm) affineMap(w linearMap, b, noise, mag []float64, dense *mat.Dense, cache *absProduct) {
	f.affineErr(w, b, noise, mag, cache)
	raw := f.Lam.RawMatrix()
	if dense != nil {
		_, c := dense.Dims()
		next := newScratch(raw.Rows, c, false)
		gemm(cache.packs(), blas.NoTrans, raw, dense.RawMatrix(), 0, next.RawMatrix())
		f.replaceLam(next)
		return
	}
	next := newScratch(raw.Rows, w.In(), true)
	for r := range raw.Rows {
		w.MulTransVec(next.RawRowView(r), raw.Data[r*raw.Stride:r*raw.Stride+raw.Cols])
	}
	f.replaceLam(next)
}

// affineErr is the first half of affineMap: the constants of the form
// after the substitution and the error bounds of it, on the coefficients
// before it. cache, if not nil, keeps |W| mag for the next substitution
// through the same map.
func (f *linearForm) affineErr(w linearMap, b, noise, mag []float64, cache *absProduct) {
	n := w.Out()
	// t_i = sum_j |W_ij| mag_j bounds |(W v)_i|.
	t, magSum := cache.get(w, mag)
	raw := f.Lam.RawMatrix()
	for r := range raw.Rows {
		row := raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols]
		s, abs, prop, ns := f.C[r], math.Abs(f.C[r]), 0.0, 0.0
		b, t := b[:len(row)], t[:len(row)]
		for i, l := range row {
			s += l * b[i]
			abs += math.Abs(l * b[i])
			prop += math.Abs(l) * t[i]
		}
		if noise != nil { // a sum of its own, in the same order
			for i, l := range row {
				ns += math.Abs(l) * noise[i]
			}
		}
		f.C[r] = s
		if ns != 0 {
			f.E[r] = outward.AddUp(f.E[r], outward.MulUp(ns, sumFactor(len(row))))
		}
		// Matrix-product error gamma_n |Lam| |W| mag, plus underflow, plus
		// the error of the bias dot product.
		mulErr := 2*float64(n+2)*outward.Unit*prop*sumFactor(n) + float64(n+2)*outward.Tiny*magSum
		f.E[r] = outward.AddUp(f.E[r], outward.AddUp(mulErr, outward.DotErr(abs, n)))
	}
}

// foldFixed substitutes, in a form on (x1, x2 - x1) with n = len(fixed)
// inputs, x2_i - x1_i = c_i - x1_i for every i with fixed[i] = c_i (not
// NaN): the coefficient of x1_i becomes Lam[r,i] - Lam[r,n+i] and
// Lam[r,n+i] c_i moves into the constant; |x1_i| <= mag[i].
func (f *linearForm) foldFixed(fixed, mag []float64) {
	n := len(fixed)
	raw := f.Lam.RawMatrix()
	for r := range raw.Rows {
		row := raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols]
		s, abs, coefErr := f.C[r], math.Abs(f.C[r]), 0.0
		for i, c := range fixed {
			if math.IsNaN(c) {
				continue
			}
			a := row[n+i]
			t := a * c
			s += t
			abs += math.Abs(t)
			row[i] -= a
			row[n+i] = 0
			coefErr += (2*outward.Unit*math.Abs(row[i]) + outward.Tiny) * mag[i]
		}
		f.C[r] = s
		f.E[r] = outward.AddUp(f.E[r], outward.AddUp(coefErr*sumFactor(n), outward.DotErr(abs, n)))
	}
}

// mags returns max(|Lo|, |Hi|) of each interval.
func mags(x []Interval) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v.Mag()
	}
	return out
}

// sumFactor returns 1 + 4 (n+2) u, which bounds the relative error of a
// float64 sum of n non-negative terms (each possibly a rounded product).
func sumFactor(n int) float64 { return 1 + 4*float64(n+2)*outward.Unit }

// absProduct caches t = |W| mag and the sum of mag for one linear map of a
// back-substitution chain: every target above a level substitutes through
// its map with the same box below (mag), so the product is computed once
// per Pair rather than once per back-substitution. A different mag
// replaces it. It also points to the map's matrix packed for the products
// (packs; chainPacks). Safe for concurrent use.
type absProduct struct {
	mu     sync.Mutex
	mag, t []float64
	magSum float64
	pack   *packCache // nil: none
}

// packs returns the cache of the map's packed matrices (nil for a nil c).
func (c *absProduct) packs() *packCache {
	if c == nil {
		return nil
	}
	return c.pack
}

// get returns |W| mag for the map w and the sum of mag (c nil: computed
// afresh). The slice returned must not be modified.
func (c *absProduct) get(w linearMap, mag []float64) ([]float64, float64) {
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.t != nil && slices.Equal(c.mag, mag) {
			return c.t, c.magSum
		}
	}
	t := make([]float64, w.Out())
	w.MulAbsVec(t, mag)
	magSum := 0.0
	for _, v := range mag {
		magSum += v
	}
	if c != nil {
		c.mag, c.t, c.magSum = slices.Clone(mag), t, magSum
	}
	return t, magSum
}
