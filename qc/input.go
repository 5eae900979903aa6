package qc

import (
	"fmt"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// InputBox returns the box constraints of Appendix 3,
//
//	(hi_i - x_i)(x_i - lo_i) >= 0,
//
// for every free coordinate of x1 in box1 and of x2 in box2, one
// multiplier each (the diagonal lambda_x of the paper).
func InputBox(l *Layout, box1, box2 spec.Box) []Term {
	var ts []Term
	for i, x := range l.X1 {
		if l.Inputs1[i].Mode == InputFree {
			ts = append(ts, boxTerm(l, KindInputBox, x, box1.Lo[i], box1.Hi[i], fmt.Sprintf("x1[%d]", i)))
		}
	}
	for i, x := range l.X2 {
		if l.Inputs[i].Mode == InputFree {
			ts = append(ts, boxTerm(l, KindInputBox, x, box2.Lo[i], box2.Hi[i], fmt.Sprintf("x2[%d]", i)))
		}
	}
	return ts
}

// boxTerm returns (hi - f)(f - lo) >= 0.
func boxTerm(l *Layout, kind Kind, f Form, lo, hi float64, where string) Term {
	return Term{Kind: kind, Sign: NonNeg,
		A: Sub(l.OneForm(hi), f), B: Sub(f, l.OneForm(lo)), Where: where}
}

// JointInput returns the joint input constraints of Appendix 3 per free
// coordinate of x2, for x1 in box1 and x2 in box2 (the paper has one box
// for both): with s = x1 + x2 in [S_lo, S_hi] and d = x2 - x1 in
// [D_lo, D_hi],
//
//	(S_hi - s)(s - S_lo) >= 0,   (D_hi - d)(d - D_lo) >= 0,
//
// i.e. (2 hi - (x1 + x2))((x1 + x2) - 2 lo) >= 0 and
// ((hi - lo) - (x2 - x1))((x2 - x1) + (hi - lo)) >= 0 for one box.
func JointInput(l *Layout, box1, box2 spec.Box) []Term {
	var ts []Term
	for i := range l.X1 {
		if l.Inputs[i].Mode != InputFree {
			continue
		}
		sum, diff := Add(l.X1[i], l.X2[i]), Sub(l.X2[i], l.X1[i])
		sLo, sHi := outward.AddDown(box1.Lo[i], box2.Lo[i]), outward.AddUp(box1.Hi[i], box2.Hi[i])
		dLo, dHi := outward.SubDown(box2.Lo[i], box1.Hi[i]), outward.SubUp(box2.Hi[i], box1.Lo[i])
		where := fmt.Sprintf("x[%d]", i)
		ts = append(ts,
			boxTerm(l, KindJointSum, sum, sLo, sHi, where),
			boxTerm(l, KindJointDiff, diff, dLo, dHi, where))
	}
	return ts
}

// QuantDiff returns, per free coordinate i of x2 with x2_i - x1_i in d[i],
//
//	(x2_i - x1_i - d_lo)(d_hi - (x2_i - x1_i)) >= 0,
//
// the product of Lemma 3's lower and upper bounds on the quantiser (the
// authors' |x2 - x1| <= Delta when d = [-Delta, Delta]).
func QuantDiff(l *Layout, d []bounds.Interval) []Term {
	var ts []Term
	for i := range l.X1 {
		if l.Inputs[i].Mode != InputFree {
			continue
		}
		diff := Sub(l.X2[i], l.X1[i])
		ts = append(ts, boxTerm(l, KindQuantDiff, diff, d[i].Lo, d[i].Hi, fmt.Sprintf("x[%d]", i)))
	}
	return ts
}

// QuantLinear returns the two linear bounds d_lo <= x2_i - x1_i <= d_hi of
// Lemma 3 per free coordinate of x2.
func QuantLinear(l *Layout, d []bounds.Interval) []Term {
	var ts []Term
	for i := range l.X1 {
		if l.Inputs[i].Mode != InputFree {
			continue
		}
		diff := Sub(l.X2[i], l.X1[i])
		where := fmt.Sprintf("x[%d]", i)
		ts = append(ts,
			l.Linear(KindQuantLinear, Sub(diff, l.OneForm(d[i].Lo)), where),
			l.Linear(KindQuantLinear, Sub(l.OneForm(d[i].Hi), diff), where))
	}
	return ts
}

// QuantSector returns the sector constraint of truncation toward zero,
// (x1_i - q(x1_i)) q(x1_i) >= 0 with x2 = q(x1), per free coordinate of x2:
// q(s) has the sign of s and |q(s)| <= |s|.
func QuantSector(l *Layout) []Term {
	var ts []Term
	for i := range l.X1 {
		if l.Inputs[i].Mode != InputFree {
			continue
		}
		ts = append(ts, Term{Kind: KindQuantSector, Sign: NonNeg,
			A: Sub(l.X1[i], l.X2[i]), B: l.X2[i], Where: fmt.Sprintf("x[%d]", i)})
	}
	return ts
}

// QuantError returns the interval containing q(s) - s for every s, by
// rounding mode: (-Delta, Delta) for truncation, (-Delta, 0] for floor and
// [-Delta/2, Delta/2] for rounding to nearest (closed intervals here).
func QuantError(f quantise.Format) bounds.Interval {
	step := f.Step()
	switch f.Rounding {
	case quantise.Floor:
		return bounds.Interval{Lo: -step, Hi: 0}
	case quantise.Nearest:
		return bounds.Interval{Lo: -step / 2, Hi: step / 2}
	}
	return bounds.Interval{Lo: -step, Hi: step}
}

// QuantisedInput returns Lemma 3's constraints for x2 = q(x1) with the
// quantiser f: QuantDiff and QuantLinear with QuantError(f), and
// QuantSector for truncation.
func QuantisedInput(l *Layout, f quantise.Format) []Term {
	d := make([]bounds.Interval, len(l.X1))
	for i := range d {
		d[i] = QuantError(f)
	}
	ts := append(QuantDiff(l, d), QuantLinear(l, d)...)
	if f.Rounding == quantise.Trunc {
		ts = append(ts, QuantSector(l)...)
	}
	return ts
}
