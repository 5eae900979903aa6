package vnnlib

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/spec"
)

// This file reads the relational two-network properties of VNN-LIB 2.0,
// those outside the equivalence subset (see pair.go), into a
// spec.Relational, in VNN-LIB's counterexample reading: the assertions
// together describe a counterexample. They add to that subset
//
//   - (equal-to F) in a declare-network: the network is F itself;
//   - links between the inputs of the two networks, X_f[i] rel X_g[i] + c
//     for any comparison (== ties the coordinate, <= and >= bound the
//     difference X_g[i] - X_f[i] on one side), on some coordinates only;
//   - output constraints that are any linear comparison of outputs of f
//     and g (Y_f[3] < Y_g[3], Y_g[0] - Y_f[1] <= 0.1, 2 Y_f[0] >= Y_f[1]),
//     combined with and and or (an assertion mentioning outputs only may
//     be any such formula; it is expanded into disjunctive normal form,
//     at most maxConjunctions conjunctions).
//
// A network's input box is what the file bounds it to, narrowed by the
// links and the other network's box (rounded outwards, then intersected
// with the bounds as written, so that the box with the links is exactly
// the set the file states).

// maxConjunctions bounds the size of the disjunctive normal form of the
// output condition.
const maxConjunctions = 1 << 12

// relState collects what the relational reading needs beyond the
// equivalence subset.
type relState struct {
	// general: the file is outside the equivalence subset.
	general bool
	links   map[int]*spec.InputLink
	// unsafe is the output condition so far (nil: none yet, meaning true).
	unsafe []spec.Conjunction
	// reason says why the file is outside the equivalence subset.
	reason string
}

// general records that the file is outside the equivalence subset, and
// the first reason why.
func (p *pairParser) general(why string) {
	if !p.rel.general {
		p.rel.general, p.rel.reason = true, why
	}
}

// addUnsafe adds the output formula e to the output condition.
func (p *pairParser) addUnsafe(e *node) error {
	d, err := p.outputDNF(e)
	if err != nil {
		return err
	}
	return p.andUnsafe(d, e.line)
}

// andUnsafe conjoins d to the output condition.
func (p *pairParser) andUnsafe(d []spec.Conjunction, line int) error {
	if p.rel.unsafe == nil {
		p.rel.unsafe = d
		return nil
	}
	var err error
	p.rel.unsafe, err = p.product(p.rel.unsafe, d, line)
	return err
}

// addAtoms conjoins the atoms of the output comparison d rel 0 to the
// output condition.
func (p *pairParser) addAtoms(rel string, d linear, e *node) error {
	return p.andUnsafe([]spec.Conjunction{atoms(rel, d, e.line)}, e.line)
}

// outputDNF returns the output formula e in disjunctive normal form.
func (p *pairParser) outputDNF(e *node) ([]spec.Conjunction, error) {
	switch op := e.head(); op {
	case "and":
		out := []spec.Conjunction{{}}
		for _, c := range e.list[1:] {
			d, err := p.outputDNF(c)
			if err != nil {
				return nil, err
			}
			if out, err = p.product(out, d, e.line); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "or":
		var out []spec.Conjunction
		for _, c := range e.list[1:] {
			d, err := p.outputDNF(c)
			if err != nil {
				return nil, err
			}
			out = append(out, d...)
		}
		if len(out) > maxConjunctions {
			return nil, p.errorf(e.line, ErrUnsupported, "the output condition has more than %d conjunctions", maxConjunctions)
		}
		return out, nil
	case "<=", ">=", "<", ">", "==", "=":
		args := e.list[1:]
		if len(args) < 2 {
			return nil, p.errorf(e.line, ErrSyntax, "%s needs at least two arguments in %s", op, e)
		}
		var c spec.Conjunction
		prev, err := p.linear(args[0])
		if err != nil {
			return nil, err
		}
		for _, a := range args[1:] {
			t, err := p.linear(a)
			if err != nil {
				return nil, err
			}
			c = append(c, atoms(op, prev.add(t, -1), e.line)...)
			prev = t
		}
		return []spec.Conjunction{c}, nil
	}
	return nil, p.errorf(e.line, ErrUnsupported, "%s is not an output constraint (want and, or, <=, >=, <, >, ==)", e)
}

// product returns the conjunction of two formulas in disjunctive normal
// form.
func (p *pairParser) product(a, b []spec.Conjunction, line int) ([]spec.Conjunction, error) {
	if len(a)*len(b) > maxConjunctions {
		return nil, p.errorf(line, ErrUnsupported, "the output condition has more than %d conjunctions", maxConjunctions)
	}
	var out []spec.Conjunction
	for _, x := range a {
		for _, y := range b {
			out = append(out, append(append(spec.Conjunction{}, x...), y...))
		}
	}
	return out, nil
}

// atoms returns the atoms of d rel 0 for an output form d.
func atoms(rel string, d linear, line int) []spec.OutputAtom {
	atom := func(s float64, strict bool) spec.OutputAtom {
		a := spec.OutputAtom{C: s * d.c, Strict: strict, Line: line}
		for _, v := range d.vars() {
			t := spec.Term{K: v.k, Coef: s * d.coef[v]}
			if v.net == 0 {
				a.F = append(a.F, t)
			} else {
				a.G = append(a.G, t)
			}
		}
		return a
	}
	switch rel {
	case "<=":
		return []spec.OutputAtom{atom(1, false)}
	case "<":
		return []spec.OutputAtom{atom(1, true)}
	case ">=":
		return []spec.OutputAtom{atom(-1, false)}
	case ">":
		return []spec.OutputAtom{atom(-1, true)}
	}
	return []spec.OutputAtom{atom(1, false), atom(-1, false)}
}

// mentions reports which kinds of variable e mentions (names that are not
// declared elements are ignored here: reading them reports them).
func (p *pairParser) mentions(e *node) (x, y bool) {
	if !e.isList {
		if r, _, ok, _ := p.element(e.atom, e.line); ok {
			return !r.out, r.out
		}
		return false, false
	}
	for _, c := range e.list {
		cx, cy := p.mentions(c)
		x, y = x || cx, y || cy
	}
	return x, y
}

// link records X_g[i] - X_f[i] rel c, from the comparison on line.
func (p *pairParser) link(i int, rel string, c float64, line int) error {
	l := p.rel.links[i]
	if l == nil {
		l = &spec.InputLink{I: i, Lo: math.Inf(-1), Hi: math.Inf(1), Line: line}
		p.rel.links[i] = l
	}
	s := spanOf(l.Lo, l.Hi, l.StrictLo, l.StrictHi)
	ok := s.tighten(line, rel, c)
	l.Lo, l.Hi = s.ends()
	l.StrictLo, l.StrictHi = s.strictLo, s.strictHi
	if !ok {
		return p.errorf(line, ErrIncomplete, "%s - %s has an empty range [%v, %v]",
			p.nets[1].Input.index(i), p.nets[0].Input.index(i), l.Lo, l.Hi)
	}
	return nil
}

// relational builds the relational property of the file.
func (p *pairParser) relational() (*spec.Relational, error) {
	r := &spec.Relational{Unsafe: p.rel.unsafe}
	if len(r.Unsafe) == 0 {
		return nil, p.errorf(0, ErrIncomplete, "no output constraint")
	}
	nf, ng := len(p.x[0]), len(p.x[1])
	for i := range max(nf, ng) {
		if l := p.rel.links[i]; l != nil {
			if i >= nf || i >= ng {
				return nil, p.errorf(l.Line, ErrUnsupported, "input coordinate %d is linked but one network has only %d inputs", i, min(nf, ng))
			}
			r.Links = append(r.Links, *l)
		}
	}
	// Bounds implied through the links, both ways, rounded outwards.
	given := [2][]input{append([]input(nil), p.x[0]...), append([]input(nil), p.x[1]...)}
	for _, l := range r.Links {
		f, g := &p.x[0][l.I], &p.x[1][l.I]
		for range 2 {
			if g.hasLo && !math.IsInf(l.Hi, 1) {
				f.tighten(l.Line, ">=", outward.SubDown(g.lo, l.Hi))
			}
			if g.hasHi && !math.IsInf(l.Lo, -1) {
				f.tighten(l.Line, "<=", outward.SubUp(g.hi, l.Lo))
			}
			if f.hasLo && !math.IsInf(l.Lo, -1) {
				g.tighten(l.Line, ">=", outward.AddDown(f.lo, l.Lo))
			}
			if f.hasHi && !math.IsInf(l.Hi, 1) {
				g.tighten(l.Line, "<=", outward.AddUp(f.hi, l.Hi))
			}
		}
	}
	var err error
	if r.BoxF, err = p.box(0); err != nil {
		return nil, err
	}
	if r.BoxG, err = p.box(1); err != nil {
		return nil, err
	}
	for k, box := range []spec.Box{r.BoxF, r.BoxG} {
		for i, in := range given[k] {
			if in.hasLo {
				box.Lo[i] = max(box.Lo[i], in.lo)
			}
			if in.hasHi {
				box.Hi[i] = min(box.Hi[i], in.hi)
			}
			if box.Lo[i] > box.Hi[i] {
				return nil, p.errorf(in.loLine, ErrIncomplete, "%s has an empty range", p.nets[k].Input.index(i))
			}
		}
	}
	return r, nil
}
