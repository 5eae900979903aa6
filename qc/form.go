package qc

import (
	"github.com/nnbound/nnbound/internal/outward"
	"math"
	"slices"
)

// Form is the affine form eta -> sum_k Val[k] * eta[Idx[k]] over the
// coordinates of eta (the constant coordinate makes it affine). Idx is
// strictly increasing. Rad, when not nil, has the length of Val and bounds
// the rounding error of each coefficient: the exact coefficient lies in
// [Val[k] - Rad[k], Val[k] + Rad[k]].
type Form struct {
	Idx []int
	Val []float64
	Rad []float64
}

// Unit returns the form eta[i].
func Unit(i int) Form { return Form{Idx: []int{i}, Val: []float64{1}} }

// Scaled returns the form c * eta[i] (exact).
func Scaled(c float64, i int) Form {
	if c == 0 {
		return Form{}
	}
	return Form{Idx: []int{i}, Val: []float64{c}}
}

// IsZero reports whether f has no non-zero coefficient.
func (f Form) IsZero() bool {
	for _, v := range f.Val {
		if v != 0 {
			return false
		}
	}
	for _, r := range f.Rad {
		if r != 0 {
			return false
		}
	}
	return true
}

// Eval returns f(eta) in float64 (for tests and diagnostics; not rigorous).
func (f Form) Eval(eta []float64) float64 {
	s := 0.0
	for k, i := range f.Idx {
		s += f.Val[k] * eta[i]
	}
	return s
}

// Coef returns the coefficient of eta[i] in f and its radius.
func (f Form) Coef(i int) (v, r float64) {
	k, ok := slices.BinarySearch(f.Idx, i)
	if !ok {
		return 0, 0
	}
	if f.Rad != nil {
		r = f.Rad[k]
	}
	return f.Val[k], r
}

// rad returns the radius of coefficient k.
func (f Form) rad(k int) float64 {
	if f.Rad == nil {
		return 0
	}
	return f.Rad[k]
}

// radUp returns an upper bound of a non-negative quantity r that was
// computed by at most four float64 additions or multiplications of
// non-negative terms: each rounds by at most a relative u, so a relative
// 8u and one more ulp cover them.
func radUp(r float64) float64 {
	if r == 0 {
		return 0
	}
	return outward.Up(r * (1 + 0x1p-50))
}

// Comb returns the form a*f + b*g with the radii of the result bounding
// the rounding of this combination on top of the radii of f and g.
func Comb(a float64, f Form, b float64, g Form) Form {
	out := Form{
		Idx: make([]int, 0, len(f.Idx)+len(g.Idx)),
		Val: make([]float64, 0, len(f.Idx)+len(g.Idx)),
		Rad: make([]float64, 0, len(f.Idx)+len(g.Idx)),
	}
	i, j := 0, 0
	for i < len(f.Idx) || j < len(g.Idx) {
		var idx int
		var fv, fr, gv, gr float64
		switch {
		case j == len(g.Idx) || (i < len(f.Idx) && f.Idx[i] < g.Idx[j]):
			idx, fv, fr = f.Idx[i], f.Val[i], f.rad(i)
			i++
		case i == len(f.Idx) || g.Idx[j] < f.Idx[i]:
			idx, gv, gr = g.Idx[j], g.Val[j], g.rad(j)
			j++
		default:
			idx, fv, fr, gv, gr = f.Idx[i], f.Val[i], f.rad(i), g.Val[j], g.rad(j)
			i++
			j++
		}
		p, q := a*fv, b*gv
		s := p + q
		// |fl(fl(a fv) + fl(b gv)) - (a fv + b gv)| <= u(|p| + |q| + |s|)
		// (each product and the sum round by at most u of their values);
		// with exact products only the sum rounds, by at most u|p + q| <=
		// 2u|s|, which is 0 for an exact cancellation.
		r := math.Abs(a)*fr + math.Abs(b)*gr
		switch {
		case inexactMul(a, fv) || inexactMul(b, gv):
			r += outward.Unit * (math.Abs(p) + math.Abs(q) + math.Abs(s))
		case p != 0 && q != 0:
			r += 2 * outward.Unit * math.Abs(s)
		}
		r = radUp(r)
		if s == 0 && r == 0 {
			continue
		}
		out.Idx = append(out.Idx, idx)
		out.Val = append(out.Val, s)
		out.Rad = append(out.Rad, r)
	}
	if !slices.ContainsFunc(out.Rad, func(r float64) bool { return r != 0 }) {
		out.Rad = nil
	}
	return out
}

// inexactMul reports whether the float64 product a*v may round.
func inexactMul(a, v float64) bool { return v != 0 && a != 0 && math.Abs(a) != 1 }

// Add returns f + g.
func Add(f, g Form) Form { return Comb(1, f, 1, g) }

// Sub returns f - g.
func Sub(f, g Form) Form { return Comb(1, f, -1, g) }

// Dot returns sum_j w[j] * fs[j] + bias * eta[one], accumulating in the
// order of j (the pre-activation of a neuron from the forms of the layer
// below).
func Dot(w []float64, fs []Form, bias float64, one int) Form {
	acc := Scaled(bias, one)
	for j, f := range fs {
		if w[j] == 0 || len(f.Idx) == 0 {
			continue
		}
		acc = Comb(1, acc, w[j], f)
	}
	return acc
}

// Sparse returns the form's coefficients as parallel slices without the
// radii (for solver data, where rounding does not matter).
func (f Form) Sparse() ([]int, []float64) { return f.Idx, f.Val }
