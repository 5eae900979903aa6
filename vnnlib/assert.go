package vnnlib

import (
	"math"
	"strconv"
)

// refs reports whether e mentions an input and whether it mentions an
// output, and checks that every variable it mentions is declared.
func (p *parser) refs(e *node) (hasX, hasY bool, err error) {
	if !e.isList {
		isX, i, ok := variable(e.atom)
		if !ok {
			return false, false, nil
		}
		if isX && p.x[i] == nil {
			return false, false, p.errorf(e.line, ErrSyntax, "X_%d is used before it is declared", i)
		}
		if !isX && !p.y[i] {
			return false, false, p.errorf(e.line, ErrSyntax, "Y_%d is used before it is declared", i)
		}
		return isX, !isX, nil
	}
	for _, c := range e.list {
		x, y, err := p.refs(c)
		if err != nil {
			return false, false, err
		}
		hasX, hasY = hasX || x, hasY || y
	}
	return hasX, hasY, nil
}

// assert handles the expression of one (assert ...).
func (p *parser) assert(e *node) error {
	hasX, hasY, err := p.refs(e)
	if err != nil {
		return err
	}
	if !hasX {
		if hasY {
			p.ignored++
			p.outs = append(p.outs, e)
			return nil
		}
		return p.errorf(e.line, ErrUnsupported, "assertion %s mentions no variable", e)
	}
	return p.inputConstraint(e)
}

// inputConstraint applies an expression that mentions inputs.
func (p *parser) inputConstraint(e *node) error {
	if !e.isList {
		return p.errorf(e.line, ErrUnsupported, "bare %s is not a constraint", e.atom)
	}
	switch op := e.head(); op {
	case "and":
		for _, c := range e.list[1:] {
			hasX, hasY, _ := p.refs(c) // declarations already checked
			switch {
			case hasX:
				if err := p.inputConstraint(c); err != nil {
					return err
				}
			case hasY:
				p.ignored++
				p.outs = append(p.outs, c)
			}
		}
		return nil
	case "or":
		if len(e.list) == 2 {
			return p.inputConstraint(e.list[1])
		}
		return p.errorf(e.line, ErrUnsupported, "disjunction (or ...) over inputs is not supported: the input set must be one box")
	case "<=", ">=", "<", ">", "=":
		return p.comparison(op, e)
	case "":
		return p.errorf(e.line, ErrSyntax, "expected an operator in %s", e)
	default:
		return p.errorf(e.line, ErrUnsupported, "%q over inputs is not supported (want <=, >=, <, >, = or and)", op)
	}
}

// comparison applies a chain (op t1 t2 ... tk), meaning t1 op t2 op ... tk,
// where each term is one input X_i or a constant.
func (p *parser) comparison(op string, e *node) error {
	args := e.list[1:]
	if len(args) < 2 {
		return p.errorf(e.line, ErrSyntax, "%s needs at least two arguments in %s", op, e)
	}
	type term struct {
		x     int // input index, or -1 for a constant
		value float64
	}
	terms := make([]term, len(args))
	for k, a := range args {
		if !a.isList {
			if isX, i, ok := variable(a.atom); ok {
				if !isX {
					return p.errorf(a.line, ErrUnsupported, "constraint %s couples inputs and outputs", e)
				}
				terms[k] = term{x: i}
				continue
			}
		}
		hasX, hasY, _ := p.refs(a)
		switch {
		case hasY:
			return p.errorf(a.line, ErrUnsupported, "constraint %s couples inputs and outputs", e)
		case hasX:
			return p.errorf(a.line, ErrUnsupported, "bound %s is not a constant (only X_i <= c and X_i >= c are supported)", a)
		}
		v, err := p.constant(a)
		if err != nil {
			return err
		}
		terms[k] = term{x: -1, value: v}
	}
	for k := range len(terms) - 1 {
		a, b := terms[k], terms[k+1]
		switch {
		case a.x >= 0 && b.x >= 0:
			return p.errorf(e.line, ErrUnsupported, "constraint between X_%d and X_%d is not supported (only constant bounds)", a.x, b.x)
		case a.x < 0 && b.x < 0:
			continue // constant against constant says nothing about the inputs
		}
		// Normalise to "X_i rel c".
		i, c, rel := a.x, b.value, op
		if a.x < 0 {
			i, c, rel = b.x, a.value, mirror(op)
		}
		if err := p.bound(e.line, i, rel, c); err != nil {
			return err
		}
	}
	return nil
}

// bound records X_i rel c (strict relations read as closed).
func (p *parser) bound(line, i int, rel string, c float64) error {
	in := p.x[i]
	if !in.tighten(line, rel, c) {
		return p.errorf(line, ErrIncomplete, "X_%d has an empty range: lower bound %v (line %d) > upper bound %v (line %d)",
			i, in.lo, in.loLine, in.hi, in.hiLine)
	}
	return nil
}

// tighten records "this input rel c" on line (strict relations read as
// closed) and reports whether the input's range is still non-empty.
func (in *input) tighten(line int, rel string, c float64) bool {
	return in.span.tighten(line, closed(rel), c)
}

// constant evaluates a constant term: a decimal number, or (- a), (- a b),
// (+ a b ...), (* a b ...), (/ a b) of constant terms.
func (p *parser) constant(e *node) (float64, error) {
	if !e.isList {
		v, ok := number(e.atom)
		if !ok {
			return 0, p.errorf(e.line, ErrUnsupported, "%q is not a number or a declared variable", e.atom)
		}
		return v, nil
	}
	op := e.head()
	args := make([]float64, 0, len(e.list))
	if len(e.list) > 1 {
		for _, a := range e.list[1:] {
			v, err := p.constant(a)
			if err != nil {
				return 0, err
			}
			args = append(args, v)
		}
	}
	var v float64
	switch {
	case op == "-" && len(args) == 1:
		v = -args[0]
	case op == "-" && len(args) >= 2:
		v = args[0]
		for _, a := range args[1:] {
			v -= a
		}
	case op == "+" && len(args) >= 1:
		for _, a := range args {
			v += a
		}
	case op == "*" && len(args) >= 1:
		v = 1
		for _, a := range args {
			v *= a
		}
	case op == "/" && len(args) == 2:
		if args[1] == 0 {
			return 0, p.errorf(e.line, ErrUnsupported, "division by zero in %s", e)
		}
		v = args[0] / args[1]
	default:
		return 0, p.errorf(e.line, ErrUnsupported, "%s is not a constant (want a number, (- c) or (/ a b))", e)
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, p.errorf(e.line, ErrUnsupported, "%s is not a finite number", e)
	}
	return v, nil
}

// number parses a decimal literal: an optional sign, digits with an
// optional fraction, and an optional exponent. It rejects what
// strconv.ParseFloat would also accept (inf, nan, hexadecimal, '_').
func number(s string) (float64, bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return 0, false
		}
	}
	if i != len(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}
