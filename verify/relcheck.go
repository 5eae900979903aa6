package verify

import (
	"fmt"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// RelationalPoint is an input pair of a relational property with the
// networks' outputs there (nn.Network.Eval) and each atom's exact value
// enclosed with directed rounding (CheckRelational).
type RelationalPoint struct {
	// XF and XG are the inputs of f and g (XG nil for one network); F and
	// G the outputs there (G nil for one network).
	XF []float64 `json:"x_f"`
	XG []float64 `json:"x_g,omitempty"`
	F  []float64 `json:"f"`
	G  []float64 `json:"g,omitempty"`
	// AtomLo and AtomHi enclose the exact left-hand side of each atom
	// (sum of terms plus C), the atoms of every conjunction in turn.
	AtomLo []float64 `json:"atom_lo"`
	AtomHi []float64 `json:"atom_hi"`
	// InSet reports that the pair satisfies every input bound and link
	// exactly (checked with directed rounding).
	InSet bool `json:"in_set"`
}

// CheckRelational is the one check of a relational counterexample, which
// every Violated verdict of DecideRelational rests on, in the manner of
// CheckPoint: it checks that (xf, xg) lies in the property's input set
// (each link's difference x_g[i] - x_f[i] enclosed with directed
// rounding), evaluates f at xf and g at xg, encloses each exact output
// of the real-valued networks (bounds.Points) and each atom's left-hand
// side with directed rounding, and judges:
//
//	Violated  the pair is in the set and every atom of some conjunction surely holds
//	Holds     every conjunction has an atom that surely fails (or the pair is outside the set)
//	Unknown   float64 cannot tell
//
// g is not evaluated for a property of one network (xg may be nil). It is
// an error if an input has the wrong size or an atom does not fit the
// networks' outputs.
func CheckRelational(f, g *nn.Network, xf, xg []float64, r *spec.Relational) (*RelationalPoint, Status, error) {
	if f == nil || (!r.Single() && g == nil) {
		return nil, Unknown, fmt.Errorf("verify: a network is nil: %w", nn.ErrDimension)
	}
	mg := 0
	if !r.Single() {
		mg = g.OutputSize()
	}
	if err := r.Validate(f.OutputSize(), mg); err != nil {
		return nil, Unknown, fmt.Errorf("verify: %w", err)
	}
	p := &RelationalPoint{XF: append([]float64(nil), xf...), InSet: inSet(r, xf, xg)}
	var err error
	var ef, eg []bounds.Interval
	if p.F, ef, err = evalEnclose(f, xf); err != nil {
		return nil, Unknown, fmt.Errorf("verify: network 1: %w", err)
	}
	if !r.Single() {
		p.XG = append([]float64(nil), xg...)
		if p.G, eg, err = evalEnclose(g, xg); err != nil {
			return nil, Unknown, fmt.Errorf("verify: network 2: %w", err)
		}
	}
	violated, holds := false, true
	for _, c := range r.Unsafe {
		all, some := true, false
		for _, a := range c {
			lo, hi := atomEnclosure(a, ef, eg)
			p.AtomLo, p.AtomHi = append(p.AtomLo, lo), append(p.AtomHi, hi)
			sure := hi < 0 || (hi == 0 && !a.Strict)
			fails := lo > 0 || (lo == 0 && a.Strict)
			all = all && sure
			some = some || fails
		}
		violated = violated || all
		holds = holds && some
	}
	switch {
	case !p.InSet:
		return p, Holds, nil
	case violated:
		return p, Violated, nil
	case holds:
		return p, Holds, nil
	}
	return p, Unknown, nil
}

// evalEnclose returns f(x) and enclosures of its exact value.
func evalEnclose(f *nn.Network, x []float64) ([]float64, []bounds.Interval, error) {
	y, err := f.Eval(x)
	if err != nil {
		return nil, nil, err
	}
	e, err := enclose(f, x)
	return y, e, err
}

// atomEnclosure encloses sum a.F y_f + sum a.G y_g + a.C over the output
// enclosures ef and eg.
func atomEnclosure(a spec.OutputAtom, ef, eg []bounds.Interval) (lo, hi float64) {
	lo, hi = a.C, a.C
	for net, ts := range [2][]spec.Term{a.F, a.G} {
		e := [2][]bounds.Interval{ef, eg}[net]
		for _, t := range ts {
			y := e[t.K]
			l1, l2 := outward.MulDown(t.Coef, y.Lo), outward.MulDown(t.Coef, y.Hi)
			h1, h2 := outward.MulUp(t.Coef, y.Lo), outward.MulUp(t.Coef, y.Hi)
			lo = outward.AddDown(lo, min(l1, l2))
			hi = outward.AddUp(hi, max(h1, h2))
		}
	}
	return lo, hi
}

// inSet reports whether (xf, xg) satisfies r's input bounds and links
// exactly: each difference is enclosed with directed rounding and must
// lie inside the link's range (strictly on a strict side).
func inSet(r *spec.Relational, xf, xg []float64) bool {
	if len(xf) != r.BoxF.Dim() || !r.BoxF.Contains(xf) {
		return false
	}
	if r.Single() {
		return true
	}
	if len(xg) != r.BoxG.Dim() || !r.BoxG.Contains(xg) {
		return false
	}
	for _, l := range r.Links {
		dlo, dhi := outward.SubDown(xg[l.I], xf[l.I]), outward.SubUp(xg[l.I], xf[l.I])
		if xg[l.I] == xf[l.I] {
			dlo, dhi = 0, 0
		}
		if dlo < l.Lo || (dlo == l.Lo && l.StrictLo) || dhi > l.Hi || (dhi == l.Hi && l.StrictHi) {
			return false
		}
	}
	return true
}
