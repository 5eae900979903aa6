package certify

import (
	"math"
	"slices"

	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/sdp"
)

// sdpProblem is the SDP of an lmi in SDPA form, with the map from its
// variables back to the gammas and terms.
type sdpProblem struct {
	*sdp.Problem
	// objs[j] are the forms d of block j's objective matrix
	// D_j = sum_d d d^T (one block, D = sum_o d_o d_o^T, unless the
	// inf-norm is certified jointly).
	objs [][]qc.Form
	// gammaVar[j][g] is the variable (0-based) of gamma g of block j, or
	// -1 if the gamma multiplies a zero matrix (e.g. gamma_x with x2 = x1)
	// and is left out.
	gammaVar [][4]int
	// termVar[k] is the variable of term k, and termScale[k] (a power of
	// two) its scale: the multiplier of term k is x[termVar[k]] * termScale[k].
	// termVar[k] is -1, and the multiplier 0, when nothing is left of the
	// term's matrix in the SDP (a term about neurons that are zero on the
	// region, see sdpCoords).
	termVar   []int
	termScale []float64
	// objScale (a power of two) divides the objective matrices D_j: every
	// variable of the SDP is the gamma or multiplier over objScale.
	objScale float64
}

// problem writes the LMI as the SDPA-form SDP
//
//	minimise  sum_g w_g gamma_g
//	subject to  sum_g gamma_g G_g - sum_k lambda_k M_k - D  >= 0   (PSD block)
//	            gamma_g >= 0, lambda_k >= 0 for NonNeg terms       (LP block)
//
// where G_g = sum_{f in group g} f f^T, D = sum_o d_o d_o^T and M_k =
// (a b^T + b a^T)/2 for term k. The G_g and M_k are given as rank-one
// Factors, M_k = ((a+b)(a+b)^T - (a-b)(a-b)^T)/4; D as entries.
//
// For conditioning, the LMI is written in the coordinates y = S^-1 eta,
// S = diag(s) with s_c a power of two >= max |eta_c| (a congruence: the
// LMI holds iff it holds scaled), and each term's multiplier is scaled by
// a power of two that brings its factors to unit size. Both scalings are
// exact in floating point; the check undoes them exactly. Coordinates
// that are zero on the region, and negligible components, are left out
// (see sdpCoords).
//
// The LMI is homogeneous in (D, gammas, multipliers), so D is divided by
// objScale, a power of two near the expected optimum (the square of an a
// priori bound such as the interval one): the SDP's optimum is then near
// 1 whatever the size of the error, which the solver's starting point
// assumes. The variables are the gammas and multipliers over objScale.
func (m *lmi) problem(w Gammas, expect float64) *sdpProblem {
	return m.problemOf([][]qc.Form{m.diff}, w, expect)
}

// problemOf writes the SDP of problem with one PSD block per entry of
// objs, all sharing the multipliers of the terms, each with gammas of its
// own:
//
//	minimise  t
//	subject to  sum_g gamma_jg G_g - sum_k lambda_k M_k - D_j >= 0   (PSD block j)
//	            t - sum_g w_g gamma_jg >= 0, gamma_jg >= 0, lambda_k >= 0 (NonNeg)
//
// with D_j = sum_{d in objs[j]} d d^T. For one block, t is left out and
// the objective is sum_g w_g gamma_g.
func (m *lmi) problemOf(objs [][]qc.Form, w Gammas, expect float64) *sdpProblem {
	nb := len(objs)
	wv := w.vec()
	sp := &sdpProblem{Problem: &sdp.Problem{}, objs: objs, gammaVar: make([][4]int, nb),
		termVar: make([]int, len(m.terms)), termScale: make([]float64, len(m.terms)), objScale: objectiveScale(expect)}
	p := sp.Problem
	scale := m.scales()
	pos, size := m.sdpCoords()
	// form returns f in the SDP's coordinates (see sdpForm).
	form := func(f qc.Form) qc.Form { return sdpForm(f, scale, pos) }
	factor := func(block int, d float64, f qc.Form) sdp.Factor {
		idx, val := f.Sparse()
		return sdp.Factor{Block: block, D: d, U: sdp.SparseVec{Index: slices.Clone(idx), Value: slices.Clone(val)}}
	}
	dict := newDictionary(m.layout, form, pos)
	var f0 sdp.Matrix
	for j, ds := range objs {
		d := make([]qc.Form, len(ds))
		for o := range ds {
			d[o] = form(ds[o])
		}
		f0 = append(f0, objective(j, d, size, sp.objScale)...)
	}
	p.F = append(p.F, f0)
	p.Factors = append(p.Factors, nil)
	lp := nb // the LP block
	nLP := 0
	addVar := func(c float64, factors []sdp.Factor, nonneg bool) int {
		var e sdp.Matrix
		if nonneg {
			e = sdp.Matrix{{Block: lp, I: nLP, J: nLP, V: 1}}
			nLP++
		}
		p.C = append(p.C, c)
		p.F = append(p.F, e)
		p.Factors = append(p.Factors, factors)
		return len(p.C) - 1
	}
	tVar := -1
	if nb > 1 {
		tVar = addVar(1, nil, false)
	}
	for j := range objs {
		for g, forms := range m.groups {
			sp.gammaVar[j][g] = -1
			var fs []sdp.Factor
			for _, f := range forms {
				if g := form(f); !g.IsZero() {
					fs = append(fs, factor(j, 1, g))
				}
			}
			if len(fs) == 0 {
				continue
			}
			c := wv[g]
			if tVar >= 0 {
				c = 0
			}
			sp.gammaVar[j][g] = addVar(c, fs, true)
		}
		if tVar >= 0 {
			// t - sum_g w_g gamma_jg >= 0.
			row := nLP
			nLP++
			p.F[tVar+1] = append(p.F[tVar+1], sdp.Entry{Block: lp, I: row, J: row, V: 1})
			for g, v := range sp.gammaVar[j] {
				if v >= 0 && wv[g] != 0 {
					p.F[v+1] = append(p.F[v+1], sdp.Entry{Block: lp, I: row, J: row, V: -wv[g]})
				}
			}
		}
	}
	for k, t := range m.terms {
		a, b := form(t.A), form(t.B)
		sa, sb := dict.split(t.Where, a), dict.split(t.Where, b)
		var fs []sdp.Factor
		for j := range objs {
			fs = append(fs, termFactors(a, b, func(d float64, f qc.Form, as, bs float64) sdp.Factor {
				fc := factor(j, d, f)
				fc.Coef = comb(as, sa, bs, sb).coef(size)
				return fc
			})...)
		}
		sp.termScale[k] = normalise(fs)
		sp.termVar[k] = -1
		if len(fs) > 0 {
			sp.termVar[k] = addVar(0, fs, t.Sign == qc.NonNeg)
		}
	}
	for j := range objs {
		p.Blocks = append(p.Blocks, sdp.Block{Size: size})
		if len(dict.vecs) > 0 {
			p.Bases = append(p.Bases, dict.basis(j))
		}
	}
	if nLP > 0 {
		p.Blocks = append(p.Blocks, sdp.Block{Size: nLP, Diagonal: true})
	}
	return sp
}

// objective returns the entries (upper triangle) of block j's
// D / objScale with D = sum_{d in ds} d d^T (n x n, the forms in the
// SDP's coordinates), leaving out the negligible ones.
func objective(j int, ds []qc.Form, n int, objScale float64) sdp.Matrix {
	dense := make([]float64, n*n)
	for _, d := range ds {
		for a, i := range d.Idx {
			for b, k := range d.Idx {
				if i <= k {
					dense[i*n+k] += d.Val[a] * d.Val[b] / objScale
				}
			}
		}
	}
	big := 0.0
	for _, v := range dense {
		big = max(big, math.Abs(v))
	}
	var f0 sdp.Matrix
	for i := range n {
		for k := i; k < n; k++ {
			if v := dense[i*n+k]; math.Abs(v) > negligible*big {
				f0 = append(f0, sdp.Entry{Block: j, I: i, J: k, V: v})
			}
		}
	}
	return f0
}

// termFactors returns -M for the term's M = (a b^T + b a^T)/2, with a
// and b its forms in the SDP's coordinates, as rank-one factors made by
// factor (none when a or b is zero): factor(d, f, as, bs) makes d f f^T
// for f = as*a + bs*b.
func termFactors(a, b qc.Form, factor func(d float64, f qc.Form, as, bs float64) sdp.Factor) []sdp.Factor {
	if a.IsZero() || b.IsZero() {
		return nil
	}
	if formsEqual(a, b) {
		return []sdp.Factor{factor(-1, a, 1, 0)}
	}
	sum, dif := qc.Add(a, b), qc.Sub(a, b)
	var fs []sdp.Factor
	if !sum.IsZero() {
		fs = append(fs, factor(-0.25, sum, 1, 1))
	}
	if !dif.IsZero() {
		fs = append(fs, factor(0.25, dif, 1, -1))
	}
	return fs
}

// normalise scales the factors' D by a power of two 2^e that brings
// max |D| * max |u|^2 near 1, and returns 2^-e: the multiplier of the
// original factors is the variable times 2^-e.
func normalise(fs []sdp.Factor) float64 {
	size := 0.0
	for _, f := range fs {
		for _, u := range f.U.Value {
			size = max(size, math.Abs(f.D)*u*u)
		}
	}
	if size == 0 || math.IsInf(size, 0) || math.IsNaN(size) {
		return 1
	}
	_, e := math.Frexp(size)
	// The coordinates are scaled to unit size, so a term is tiny only when
	// it is about a tiny quantity (the difference of corresponding neurons
	// of a float16 copy, 2^-30 in its square), and the objective may be
	// as tiny: such terms need their full scale. The limit only keeps the
	// multipliers finite.
	e = min(max(e, -200), 200)
	for i := range fs {
		fs[i].D = math.Ldexp(fs[i].D, -e)
	}
	return math.Ldexp(1, -e)
}

// objectiveScale returns a power of two near expect (1 if expect is not a
// positive finite number), within 2^-400..2^400.
func objectiveScale(expect float64) float64 {
	if !(expect > 0) || math.IsInf(expect, 0) {
		return 1
	}
	_, e := math.Frexp(expect)
	return math.Ldexp(1, min(max(e, -400), 400))
}

// scales returns s_c, a power of two >= max |eta_c| over the region.
func (m *lmi) scales() []float64 {
	s := make([]float64, len(m.radius))
	for c, r := range m.radius {
		s[c] = pow2Above(r)
	}
	return s
}

func formsEqual(a, b qc.Form) bool {
	if len(a.Idx) != len(b.Idx) {
		return false
	}
	for k := range a.Idx {
		if a.Idx[k] != b.Idx[k] || a.Val[k] != b.Val[k] {
			return false
		}
	}
	return true
}
