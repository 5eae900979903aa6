package certify

import (
	"encoding/binary"
	"hash/maphash"
	"math"

	"github.com/nnbound/nnbound/qc"
)

// mergeTerms drops terms whose matrix M = (a b^T + b a^T)/2 is a positive
// multiple of an earlier term's, and makes a kept non-negative term give
// way to a later free one with such a matrix: the SDP's value is the same
// (a multiplier >= 0 and a free one on the same matrix add up to one free
// multiplier, two multipliers >= 0 to one), but the optimal multipliers of
// duplicated terms are not unique, which an interior-point solver pays
// for in conditioning (the authors' set has the cross term
// phi (phi - xi) >= 0 next to the complementarity (phi - xi) phi = 0).
//
// It also drops terms with a zero form (their matrix is zero) and
// non-negative terms whose matrix is positive semidefinite
// (a b^T + b a^T with b a positive multiple of a, such as the authors'
// phi phi >= 0): they hold for every eta, so their optimal multiplier is 0,
// and a solver does better without them.
//
// Dropping a term is always sound; a free term is kept with its own forms,
// so the equality the check relies on is the one its builder proved.
func mergeTerms(ts []qc.Term) []qc.Term {
	seed := maphash.MakeSeed()
	type entry struct {
		at   int     // index in out
		sign float64 // sign of the scale of the term's matrix
	}
	seen := map[uint64][]entry{}
	out := ts[:0:0]
	for _, t := range ts {
		key, sign, ok := termKey(seed, t)
		switch {
		case !ok:
			continue // a zero form: the zero matrix
		case t.Sign == qc.NonNeg && sign > 0 && sameDirection(t.A, t.B):
			continue // positive semidefinite: true everywhere
		}
		merged := false
		for _, e := range seen[key] {
			prev := &out[e.at]
			if !sameMatrix(*prev, t) {
				continue
			}
			switch {
			case prev.Sign == qc.Free:
				merged = true
			case t.Sign == qc.Free:
				*prev = t
				merged = true
			case e.sign == sign:
				merged = true
			}
			if merged {
				break
			}
		}
		if !merged {
			seen[key] = append(seen[key], entry{len(out), sign})
			out = append(out, t)
		}
	}
	return out
}

// termKey hashes the term's pair of forms, each divided by its coefficient
// of largest magnitude and the two put in a canonical order, so that
// terms whose matrices are multiples of each other share a key. sign is
// the sign of the product of the two divisors. ok is false for a zero form
// (pivot 0; a form with radii but no non-zero value counts as zero: its
// matrix is the zero matrix up to rounding the check does not need).
func termKey(seed maphash.Seed, t qc.Term) (key uint64, sign float64, ok bool) {
	ha, sa, okA := formKey(seed, t.A)
	hb, sb, okB := formKey(seed, t.B)
	if !okA || !okB {
		return 0, 0, false
	}
	if ha > hb {
		ha, hb = hb, ha
	}
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], ha)
	binary.LittleEndian.PutUint64(buf[8:], hb)
	return maphash.Bytes(seed, buf[:]), math.Copysign(1, sa*sb), true
}

// formKey hashes f divided by its coefficient of largest magnitude (the
// divisor s is returned).
func formKey(seed maphash.Seed, f qc.Form) (key uint64, s float64, ok bool) {
	s = pivot(f)
	if s == 0 {
		return 0, 0, false
	}
	var h maphash.Hash
	h.SetSeed(seed)
	var buf [16]byte
	for k, i := range f.Idx {
		binary.LittleEndian.PutUint64(buf[:8], uint64(i))
		binary.LittleEndian.PutUint64(buf[8:], math.Float64bits(f.Val[k]/s+0)) // +0 folds -0
		h.Write(buf[:])
	}
	return h.Sum64(), s, true
}

// pivot returns the coefficient of f of largest magnitude (the first of
// equal magnitudes), 0 for a zero form.
func pivot(f qc.Form) float64 {
	p := 0.0
	for _, v := range f.Val {
		if math.Abs(v) > math.Abs(p) {
			p = v
		}
	}
	return p
}

// sameMatrix reports whether the normalised forms of a and b are equal
// (as unordered pairs): their matrices are multiples of each other.
func sameMatrix(a, b qc.Term) bool {
	return (sameDirection(a.A, b.A) && sameDirection(a.B, b.B)) ||
		(sameDirection(a.A, b.B) && sameDirection(a.B, b.A))
}

// sameDirection reports whether f / pivot(f) and g / pivot(g) are equal in
// float64.
func sameDirection(f, g qc.Form) bool {
	if len(f.Idx) != len(g.Idx) {
		return false
	}
	sf, sg := pivot(f), pivot(g)
	for k := range f.Idx {
		if f.Idx[k] != g.Idx[k] || f.Val[k]/sf != g.Val[k]/sg {
			return false
		}
	}
	return true
}
