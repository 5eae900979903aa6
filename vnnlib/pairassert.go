package vnnlib

import (
	"cmp"
	"math"
	"slices"
)

// elem is one element of a declared tensor.
type elem struct {
	net int // 0 for f, 1 for g
	out bool
	k   int // flat index
}

// linear is the term sum coef[v] v + c.
type linear struct {
	coef map[elem]float64
	c    float64
}

// add returns a + s b.
func (a linear) add(b linear, s float64) linear {
	r := linear{coef: map[elem]float64{}, c: a.c + s*b.c}
	for v, w := range a.coef {
		r.coef[v] = w
	}
	for v, w := range b.coef {
		if r.coef[v] += s * w; r.coef[v] == 0 {
			delete(r.coef, v)
		}
	}
	return r
}

// scale returns s a.
func (a linear) scale(s float64) linear {
	return linear{}.add(a, s)
}

// vars returns the variables of a in a fixed order.
func (a linear) vars() []elem {
	vs := make([]elem, 0, len(a.coef))
	for v := range a.coef {
		vs = append(vs, v)
	}
	slices.SortFunc(vs, func(x, y elem) int {
		if c := cmp.Compare(x.net, y.net); c != 0 {
			return c
		}
		return cmp.Compare(x.k, y.k)
	})
	return vs
}

// name returns the element's name as written, X_f[0].
func (p *pairParser) elemName(v elem) string {
	n := p.nets[v.net]
	if v.out {
		return n.Output.index(v.k)
	}
	return n.Input.index(v.k)
}

// assert handles the expression of one (assert ...).
func (p *pairParser) assert(e *node) error {
	if !e.isList {
		return p.errorf(e.line, ErrUnsupported, "bare %s is not a constraint", e.atom)
	}
	switch op := e.head(); op {
	case "and":
		for _, c := range e.list[1:] {
			if err := p.assert(c); err != nil {
				return err
			}
		}
		return nil
	case "or":
		if len(e.list) == 2 {
			return p.assert(e.list[1])
		}
		if x, _ := p.mentions(e); x {
			return p.errorf(e.line, ErrUnsupported, "disjunction %s over inputs is not supported", e)
		}
		p.general("a disjunction of output constraints")
		return p.addUnsafe(e)
	case "<=", ">=", "<", ">", "==", "=":
		return p.comparison(op, e)
	case "":
		return p.errorf(e.line, ErrSyntax, "expected an operator in %s", e)
	default:
		return p.errorf(e.line, ErrUnsupported, "%q is not supported (want and, <=, >=, <, >, ==)", op)
	}
}

// comparison applies a chain (op t1 t2 ... tk), meaning t1 op t2 op ... tk.
func (p *pairParser) comparison(op string, e *node) error {
	args := e.list[1:]
	if len(args) < 2 {
		return p.errorf(e.line, ErrSyntax, "%s needs at least two arguments in %s", op, e)
	}
	if op == "==" {
		op = "="
	}
	terms := make([]linear, len(args))
	for i, a := range args {
		t, err := p.linear(a)
		if err != nil {
			return err
		}
		terms[i] = t
	}
	for i := range len(terms) - 1 {
		if err := p.constraint(op, terms[i].add(terms[i+1], -1), e); err != nil {
			return err
		}
	}
	return nil
}

// constraint applies d rel 0, for the comparison e.
func (p *pairParser) constraint(rel string, d linear, e *node) error {
	vs := d.vars()
	if len(vs) == 0 {
		return p.errorf(e.line, ErrUnsupported, "comparison %s mentions no variable", e)
	}
	var hasX, hasY, unit bool
	unit = true
	for _, v := range vs {
		if w := d.coef[v]; w != 1 && w != -1 {
			unit = false
			if !v.out {
				return p.errorf(e.line, ErrUnsupported, "%s: %s has coefficient %v; only +1 and -1 are supported", e, p.elemName(v), w)
			}
		}
		hasX, hasY = hasX || !v.out, hasY || v.out
	}
	switch {
	case hasX && hasY:
		return p.errorf(e.line, ErrUnsupported, "constraint %s couples inputs and outputs", e)
	case hasX && len(vs) == 1:
		return p.inputBound(vs[0], rel, d, e)
	case hasX:
		return p.equality(vs, rel, d, e)
	}
	if err := p.addAtoms(rel, d, e); err != nil {
		return err
	}
	f, g := vs[0], vs[len(vs)-1]
	if !unit || len(vs) != 2 || f.net != 0 || g.net != 1 || f.k != g.k || d.coef[f] != -d.coef[g] {
		p.general("an output constraint other than a bound on Y_g[k] - Y_f[k]")
		return nil
	}
	// d = a (Y_g[k] - Y_f[k]) + c with a = +1 or -1.
	c := 0 - d.c
	if d.coef[g] < 0 {
		rel, c = mirror(rel), d.c
	}
	b := p.outs[g.k]
	if b == nil {
		b = &span{}
		p.outs[g.k] = b
	}
	if !b.tighten(e.line, rel, c) {
		p.general("an empty range of an output difference")
	}
	return nil
}

// inputBound applies d rel 0 with d = +-v + c for one input element v.
func (p *pairParser) inputBound(v elem, rel string, d linear, e *node) error {
	c := 0 - d.c
	if d.coef[v] < 0 {
		rel, c = mirror(rel), d.c
	}
	in := &p.x[v.net][v.k]
	if !in.tighten(e.line, rel, c) {
		return p.errorf(e.line, ErrIncomplete, "%s has an empty range: lower bound %v (line %d) > upper bound %v (line %d)",
			p.elemName(v), in.lo, in.loLine, in.hi, in.hiLine)
	}
	return nil
}

// equality applies d = 0 for d = X_f[i] - X_g[i] (either sign).
func (p *pairParser) equality(vs []elem, rel string, d linear, e *node) error {
	if len(vs) != 2 || vs[0].net == vs[1].net {
		return p.errorf(e.line, ErrUnsupported, "constraint %s between inputs is not supported (only constant bounds and %s[i] == %s[i])",
			e, p.nets[0].Input.Name, p.nets[1].Input.Name)
	}
	f, g := vs[0], vs[1]
	switch {
	case f.k != g.k:
		return p.errorf(e.line, ErrUnsupported, "%s pairs %s with %s: only %s[i] == %s[i] is supported",
			e, p.elemName(f), p.elemName(g), p.nets[0].Input.Name, p.nets[1].Input.Name)
	case d.coef[f] != -d.coef[g]:
		return p.errorf(e.line, ErrUnsupported, "%s: only %s - %s rel c is supported (no other sign)",
			e, p.elemName(g), p.elemName(f))
	case f.k >= len(p.eqLine):
		return p.errorf(e.line, ErrUnsupported, "%s: %s has no coordinate %d", e, p.nets[0].Input.Name, f.k)
	}
	// d = a (X_g[i] - X_f[i]) + c with a = +1 or -1: X_g[i] - X_f[i] rel' c'.
	c := 0 - d.c
	lrel := rel
	if d.coef[g] < 0 {
		lrel, c = mirror(rel), d.c
	}
	if err := p.link(f.k, lrel, c, e.line); err != nil {
		return err
	}
	if rel != "=" || d.c != 0 {
		p.general("a relation between inputs other than equality")
		return nil
	}
	if p.eqLine[f.k] == 0 {
		p.eqCount++
		p.eqLine[f.k] = e.line
	}
	return nil
}

// linear evaluates a linear term: a number, an element NAME[i], or
// (+ a ...), (- a), (- a b ...), (* a ...) with at most one non-constant
// factor, (/ a c) with a non-zero constant c.
func (p *pairParser) linear(e *node) (linear, error) {
	if !e.isList {
		if v, ok := number(e.atom); ok {
			return linear{c: v}, nil
		}
		r, k, ok, err := p.element(e.atom, e.line)
		if err != nil {
			return linear{}, err
		}
		if !ok {
			return linear{}, p.errorf(e.line, ErrUnsupported, "%q is not a number or a declared variable", e.atom)
		}
		return linear{coef: map[elem]float64{{net: r.net, out: r.out, k: k}: 1}}, nil
	}
	op := e.head()
	args := make([]linear, 0, len(e.list))
	for _, a := range e.list[min(1, len(e.list)):] {
		t, err := p.linear(a)
		if err != nil {
			return linear{}, err
		}
		args = append(args, t)
	}
	var r linear
	switch {
	case op == "+" && len(args) >= 1:
		for _, a := range args {
			r = r.add(a, 1)
		}
	case op == "-" && len(args) == 1:
		r = args[0].scale(-1)
	case op == "-" && len(args) >= 2:
		r = args[0]
		for _, a := range args[1:] {
			r = r.add(a, -1)
		}
	case op == "*" && len(args) >= 1:
		r = linear{c: 1}
		for _, a := range args {
			switch {
			case len(a.coef) == 0:
				r = r.scale(a.c)
			case len(r.coef) == 0:
				r = a.scale(r.c)
			default:
				return linear{}, p.errorf(e.line, ErrUnsupported, "%s is not linear", e)
			}
		}
	case op == "/" && len(args) == 2 && len(args[1].coef) == 0:
		if args[1].c == 0 {
			return linear{}, p.errorf(e.line, ErrUnsupported, "division by zero in %s", e)
		}
		r = args[0].scale(1 / args[1].c)
		if len(args[0].coef) == 0 {
			r = linear{c: args[0].c / args[1].c} // a constant, divided exactly as written
		}
	default:
		return linear{}, p.errorf(e.line, ErrUnsupported, "%s is not a linear term (want a number, a variable, +, -, * or /)", e)
	}
	if math.IsInf(r.c, 0) || math.IsNaN(r.c) {
		return linear{}, p.errorf(e.line, ErrUnsupported, "%s is not a finite number", e)
	}
	return r, nil
}
