package certify

import (
	"math"

	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/sdp"
)

// sdpProblem is the SDP of an lmi in SDPA form, with the map from its
// variables back to the gammas and terms.
type sdpProblem struct {
	*sdp.Problem
	// gammaVar[g] is the variable (0-based) of gamma g, or -1 if the gamma
	// multiplies a zero matrix (e.g. gamma_x with x2 = x1) and is left out.
	gammaVar [4]int
	// termVar[k] is the variable of term k, and termScale[k] (a power of
	// two) its scale: the multiplier of term k is x[termVar[k]] * termScale[k].
	termVar   []int
	termScale []float64
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
// exact in floating point; the check undoes them exactly.
func (m *lmi) problem(w Gammas) *sdpProblem {
	n := m.layout.Dim
	wv := w.vec()
	sp := &sdpProblem{Problem: &sdp.Problem{}, termVar: make([]int, len(m.terms)), termScale: make([]float64, len(m.terms))}
	p := sp.Problem
	scale := m.scales()
	factor := func(d float64, f qc.Form) sdp.Factor {
		idx, val := f.Sparse()
		u := make([]float64, len(val))
		for k, i := range idx {
			u[k] = val[k] * scale[i]
		}
		return sdp.Factor{Block: 0, D: d, U: sdp.SparseVec{Index: idx, Value: u}}
	}
	var f0 sdp.Matrix
	dense := make([]float64, n*n)
	for _, d := range m.diff {
		for a, i := range d.Idx {
			for b, j := range d.Idx {
				if i <= j {
					dense[i*n+j] += d.Val[a] * scale[i] * d.Val[b] * scale[j]
				}
			}
		}
	}
	for i := range n {
		for j := i; j < n; j++ {
			if v := dense[i*n+j]; v != 0 {
				f0 = append(f0, sdp.Entry{Block: 0, I: i, J: j, V: v})
			}
		}
	}
	p.F = append(p.F, f0)
	p.Factors = append(p.Factors, nil)
	nLP := 0
	addVar := func(c float64, factors []sdp.Factor, nonneg bool) int {
		var lp sdp.Matrix
		if nonneg {
			lp = sdp.Matrix{{Block: 1, I: nLP, J: nLP, V: 1}}
			nLP++
		}
		p.C = append(p.C, c)
		p.F = append(p.F, lp)
		p.Factors = append(p.Factors, factors)
		return len(p.C) - 1
	}
	for g, forms := range m.groups {
		sp.gammaVar[g] = -1
		var fs []sdp.Factor
		for _, f := range forms {
			if !f.IsZero() {
				fs = append(fs, factor(1, f))
			}
		}
		if len(fs) > 0 {
			sp.gammaVar[g] = addVar(wv[g], fs, true)
		}
	}
	for k, t := range m.terms {
		fs := termFactors(t, factor)
		sp.termScale[k] = normalise(fs)
		sp.termVar[k] = addVar(0, fs, t.Sign == qc.NonNeg)
	}
	p.Blocks = []sdp.Block{{Size: n}}
	if nLP > 0 {
		p.Blocks = append(p.Blocks, sdp.Block{Size: nLP, Diagonal: true})
	}
	return sp
}

// termFactors returns -M for the term's M = (a b^T + b a^T)/2 as rank-one
// factors made by factor.
func termFactors(t qc.Term, factor func(float64, qc.Form) sdp.Factor) []sdp.Factor {
	a, b := t.A, t.B
	if formsEqual(a, b) {
		return []sdp.Factor{factor(-1, a)}
	}
	sum, dif := qc.Add(a, b), qc.Sub(a, b)
	var fs []sdp.Factor
	if !sum.IsZero() {
		fs = append(fs, factor(-0.25, sum))
	}
	if !dif.IsZero() {
		fs = append(fs, factor(0.25, dif))
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
	// Limit the scale: a term of tiny factors (a difference that is nearly
	// zero) must not turn solver noise into a huge multiplier.
	e = min(max(e, -20), 20)
	for i := range fs {
		fs[i].D = math.Ldexp(fs[i].D, -e)
	}
	return math.Ldexp(1, -e)
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
