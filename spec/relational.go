package spec

import (
	"fmt"
	"math"
)

// Relational is a property over two networks f and g, or over one network
// f, in VNN-LIB's counterexample reading: the assertions describe a
// counterexample, an input pair (x_f, x_g) with
//
//	x_f in BoxF,  x_g in BoxG,
//	Lo_i <= x_g[i] - x_f[i] <= Hi_i   for every link i,
//
// whose outputs satisfy some conjunction of Unsafe (a disjunction of
// conjunctions of linear constraints on f(x_f) and g(x_g)). The property
// is violated (VNN-COMP's "sat") when such a pair exists and holds
// ("unsat") when none does.
//
// A link with Lo = Hi = 0 ties the coordinate (x_g[i] = x_f[i]); the
// coordinates without a link are independent. A property of one network
// (VNN-LIB 1) leaves BoxG empty, has no links and no terms on g.
type Relational struct {
	// BoxF and BoxG are the bounds of each network's inputs (flattened
	// row-major); BoxG is empty for a property of one network.
	BoxF, BoxG Box
	// Links relate coordinates of x_g and x_f, at most one per
	// coordinate, in increasing I.
	Links []InputLink
	// Unsafe is the output condition of a counterexample: it holds when
	// every atom of some conjunction holds.
	Unsafe []Conjunction
}

// InputLink is the relation Lo <= x_g[I] - x_f[I] <= Hi (strict on a side
// whose Strict flag is set); an infinite end leaves that side free.
type InputLink struct {
	I                  int
	Lo, Hi             float64
	StrictLo, StrictHi bool
	// Line is where the relation was stated, 0 when not read from a file.
	Line int
}

// Tied reports whether the link equates the coordinates: x_g[I] = x_f[I].
func (l InputLink) Tied() bool { return l.Lo == 0 && l.Hi == 0 }

// Conjunction is a list of atoms that hold together.
type Conjunction []OutputAtom

// OutputAtom is the linear constraint on the outputs
//
//	sum_t F[t].Coef y_f[F[t].K] + sum_t G[t].Coef y_g[G[t].K] + C <= 0,
//
// with < in place of <= when Strict.
type OutputAtom struct {
	F, G   []Term
	C      float64
	Strict bool
	// Line is where the atom was stated, 0 when not read from a file.
	Line int
}

// Term is Coef times output K of a network.
type Term struct {
	K    int
	Coef float64
}

// Single reports whether the property concerns f alone.
func (r *Relational) Single() bool { return r.BoxG.Dim() == 0 }

// Validate reports boxes, links or atoms that do not fit networks with
// the given output sizes (mg is ignored for a property of one network).
func (r *Relational) Validate(mf, mg int) error {
	if err := r.BoxF.Validate(); err != nil {
		return fmt.Errorf("spec: the input box of f: %w", err)
	}
	if !r.Single() {
		if err := r.BoxG.Validate(); err != nil {
			return fmt.Errorf("spec: the input box of g: %w", err)
		}
	}
	prev := -1
	for _, l := range r.Links {
		switch {
		case r.Single():
			return fmt.Errorf("spec: a property of one network has an input link (line %d): %w", l.Line, ErrInputs)
		case l.I <= prev || l.I >= min(r.BoxF.Dim(), r.BoxG.Dim()):
			return fmt.Errorf("spec: input link on coordinate %d is out of order or out of range (line %d): %w", l.I, l.Line, ErrInputs)
		case math.IsNaN(l.Lo) || math.IsNaN(l.Hi) || l.Lo > l.Hi:
			return fmt.Errorf("spec: input link on coordinate %d is empty: [%v, %v] (line %d): %w", l.I, l.Lo, l.Hi, l.Line, ErrInputs)
		}
		prev = l.I
	}
	if len(r.Unsafe) == 0 {
		return fmt.Errorf("spec: the property has no output condition: %w", ErrInputs)
	}
	for _, c := range r.Unsafe {
		if len(c) == 0 {
			return fmt.Errorf("spec: the output condition has an empty conjunction: %w", ErrInputs)
		}
		for _, a := range c {
			if err := a.validate(mf, mg, r.Single()); err != nil {
				return err
			}
		}
	}
	return nil
}

// validate reports an atom with an output index out of range, a
// non-finite number, or terms on g in a property of one network.
func (a OutputAtom) validate(mf, mg int, single bool) error {
	if math.IsNaN(a.C) || math.IsInf(a.C, 0) {
		return fmt.Errorf("spec: output constraint with constant %v (line %d): %w", a.C, a.Line, ErrInputs)
	}
	if single && len(a.G) > 0 {
		return fmt.Errorf("spec: output constraint on g in a property of one network (line %d): %w", a.Line, ErrInputs)
	}
	for net, ts := range [2][]Term{a.F, a.G} {
		m := []int{mf, mg}[net]
		for _, t := range ts {
			if t.K < 0 || t.K >= m || math.IsNaN(t.Coef) || math.IsInf(t.Coef, 0) {
				return fmt.Errorf("spec: output constraint term %v*y[%d] does not fit %d outputs (line %d): %w", t.Coef, t.K, m, a.Line, ErrInputs)
			}
		}
	}
	return nil
}
