package vnnlib

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nnbound/nnbound/spec"
)

// tensorRef is what a declared tensor name refers to.
type tensorRef struct {
	net int // 0 for f, 1 for g
	out bool
	t   *Tensor
}

// pairParser collects the declarations and constraints of a two-network
// property, one top-level command at a time.
type pairParser struct {
	*parser                       // file name, errors and constants
	version bool                  // (vnnlib-version ...) seen
	nets    []*Network            // in declaration order: f, g
	names   map[string]*tensorRef // declared tensors
	x       [2][]input            // bounds of each network's input
	eqLine  []int                 // line equating X_f[i] with X_g[i], or 0
	eqCount int
	outs    map[int]*span // the range of Y_g[k] - Y_f[k]
	rel     relState      // the relational reading (relational.go)
}

// newPairParser returns a parser for the file name.
func newPairParser(name string) *pairParser {
	return &pairParser{parser: &parser{name: name}, names: map[string]*tensorRef{}, outs: map[int]*span{},
		rel: relState{links: map[int]*spec.InputLink{}}}
}

// command handles one top-level form.
func (p *pairParser) command(n *node) error {
	switch h := n.head(); h {
	case "vnnlib-version":
		if p.version {
			return p.errorf(n.line, ErrSyntax, "vnnlib-version given twice")
		}
		p.version = true
		_, err := parseVersion(p.parser, n)
		return err
	case "declare-network":
		return p.network(n)
	case "assert":
		if len(n.list) != 2 {
			return p.errorf(n.line, ErrSyntax, "assert takes one expression, got %d", len(n.list)-1)
		}
		if len(p.nets) != 2 {
			return p.errorf(n.line, ErrSyntax, "assertion before both networks are declared")
		}
		return p.assert(n.list[1])
	case "":
		return p.errorf(n.line, ErrSyntax, "expected a command such as (assert ...), got %s", n)
	default:
		return p.errorf(n.line, ErrUnsupported, "command %q is not supported in a two-network property", h)
	}
}

// network handles (declare-network NAME (declare-input ...)
// (declare-output ...) [(isomorphic-to OTHER)]).
func (p *pairParser) network(n *node) error {
	if len(n.list) < 2 || n.list[1].isList {
		return p.errorf(n.line, ErrSyntax, "want (declare-network NAME ...), got %s", n)
	}
	name := n.list[1].atom
	if len(p.nets) == 2 {
		return p.errorf(n.line, ErrUnsupported, "network %s: only two networks are supported", name)
	}
	for _, o := range p.nets {
		if o.Name == name {
			return p.errorf(n.line, ErrSyntax, "network %s declared again (first on line %d)", name, o.Line)
		}
	}
	net := &Network{Name: name, Line: n.line}
	for _, item := range n.list[2:] {
		var err error
		switch h := item.head(); h {
		case "declare-input":
			err = p.tensor(item, net, &net.Input, false)
		case "declare-output":
			err = p.tensor(item, net, &net.Output, true)
		case "isomorphic-to", "equal-to":
			err = p.isomorphic(item, net)
		default:
			err = p.errorf(item.line, ErrUnsupported, "%s in declare-network is not supported (want declare-input, declare-output, isomorphic-to or equal-to)", item)
		}
		if err != nil {
			return err
		}
	}
	switch {
	case net.Input.Name == "":
		return p.errorf(n.line, ErrIncomplete, "network %s declares no input", name)
	case net.Output.Name == "":
		return p.errorf(n.line, ErrIncomplete, "network %s declares no output", name)
	}
	if net.IsomorphicTo != "" || net.EqualTo != "" {
		o := p.nets[0]
		if !slices.Equal(o.Input.Shape, net.Input.Shape) || !slices.Equal(o.Output.Shape, net.Output.Shape) {
			return p.errorf(n.line, ErrUnsupported, "network %s is isomorphic to %s but their shapes disagree (%v -> %v against %v -> %v)",
				name, o.Name, net.Input.Shape, net.Output.Shape, o.Input.Shape, o.Output.Shape)
		}
	}
	k := len(p.nets)
	p.nets = append(p.nets, net)
	p.names[net.Input.Name] = &tensorRef{net: k, t: &net.Input}
	p.names[net.Output.Name] = &tensorRef{net: k, out: true, t: &net.Output}
	p.x[k] = make([]input, net.Input.Size())
	if k == 0 {
		p.eqLine = make([]int, net.Input.Size())
	}
	return nil
}

// isomorphic handles (isomorphic-to OTHER) and (equal-to OTHER).
func (p *pairParser) isomorphic(n *node, net *Network) error {
	h := n.head()
	if len(n.list) != 2 || n.list[1].isList {
		return p.errorf(n.line, ErrSyntax, "want (%s NETWORK), got %s", h, n)
	}
	other := n.list[1].atom
	if len(p.nets) == 0 || p.nets[0].Name != other {
		return p.errorf(n.line, ErrSyntax, "network %s is %s %s, which is not declared before it", net.Name, strings.ReplaceAll(h, "-", " "), other)
	}
	if h == "equal-to" {
		net.EqualTo = other
	} else {
		net.IsomorphicTo = other
	}
	return nil
}

// maxElements bounds a declared tensor's size, so that a corrupt file
// cannot ask for a huge box.
const maxElements = 1 << 24

// tensor handles (declare-input NAME TYPE [SHAPE]) and declare-output.
func (p *pairParser) tensor(n *node, net *Network, t *Tensor, out bool) error {
	kind := map[bool]string{false: "input", true: "output"}[out]
	if len(n.list) != 4 || n.list[1].isList || n.list[2].isList || n.list[3].isList {
		return p.errorf(n.line, ErrSyntax, "want (declare-%s NAME TYPE [SHAPE]) with the shape written without spaces, got %s", kind, n)
	}
	if t.Name != "" {
		return p.errorf(n.line, ErrUnsupported, "network %s declares a second %s %s; only one is supported", net.Name, kind, n.list[1].atom)
	}
	name, typ := n.list[1].atom, n.list[2].atom
	if strings.ContainsAny(name, "[],") {
		return p.errorf(n.line, ErrSyntax, "%s name %q has brackets or commas", kind, name)
	}
	if r, dup := p.names[name]; dup || name == net.Input.Name {
		line := n.line
		if dup {
			line = r.t.Line
		}
		return p.errorf(n.line, ErrSyntax, "%s declared again (first on line %d)", name, line)
	}
	switch typ {
	case "real", "Real", "float16", "float32", "float64":
	default:
		return p.errorf(n.line, ErrUnsupported, "%s has type %s; want real, float16, float32 or float64", name, typ)
	}
	shape, err := parseShape(n.list[3].atom)
	if err != nil {
		return p.errorf(n.line, ErrSyntax, "shape %s of %s: %v", n.list[3].atom, name, err)
	}
	*t = Tensor{Name: name, Type: typ, Shape: shape, Line: n.line}
	return nil
}

// parseShape reads [d1,d2,...] (sizes >= 1).
func parseShape(s string) ([]int, error) {
	if len(s) < 3 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, fmt.Errorf("want [d1,d2,...]")
	}
	var shape []int
	size := 1
	for _, f := range strings.Split(s[1:len(s)-1], ",") {
		d, err := strconv.Atoi(f)
		if err != nil || d < 1 || d > maxElements || f[0] == '+' {
			return nil, fmt.Errorf("size %q is not a positive integer", f)
		}
		if size *= d; size > maxElements {
			return nil, fmt.Errorf("more than %d elements", maxElements)
		}
		shape = append(shape, d)
	}
	return shape, nil
}

// element parses NAME[i,j,...] into its tensor and flat (row-major) index.
// ok is false when s is not of that form (a number, say); a declared name
// with a bad index is an error.
func (p *pairParser) element(s string, line int) (r *tensorRef, k int, ok bool, err error) {
	open := strings.IndexByte(s, '[')
	if open < 0 {
		if r := p.names[s]; r != nil {
			return nil, 0, false, p.errorf(line, ErrUnsupported, "%s needs an index, as in %s[0]", s, s)
		}
		return nil, 0, false, nil
	}
	name := s[:open]
	r = p.names[name]
	if r == nil {
		return nil, 0, false, p.errorf(line, ErrSyntax, "%s: %s is not a declared input or output", s, name)
	}
	if s[len(s)-1] != ']' {
		return nil, 0, false, p.errorf(line, ErrSyntax, "%s: want %s[i]", s, name)
	}
	idx := strings.Split(s[open+1:len(s)-1], ",")
	if len(idx) != len(r.t.Shape) {
		return nil, 0, false, p.errorf(line, ErrSyntax, "%s: %s has shape %v, so %d indices", s, name, r.t.Shape, len(r.t.Shape))
	}
	for a, f := range idx {
		i, err := strconv.Atoi(f)
		if err != nil || i < 0 || i >= r.t.Shape[a] || f[0] == '+' || (len(f) > 1 && f[0] == '0') {
			return nil, 0, false, p.errorf(line, ErrSyntax, "%s: index %q is outside the shape %v of %s", s, f, r.t.Shape, name)
		}
		k = k*r.t.Shape[a] + i
	}
	return r, k, true, nil
}

// pair checks that the input set is complete and builds the Pair.
func (p *pairParser) pair() (*Pair, error) {
	if !p.version {
		return nil, p.errorf(0, ErrIncomplete, "no (vnnlib-version <2.0>)")
	}
	if len(p.nets) != 2 {
		return nil, p.errorf(0, ErrIncomplete, "%d network(s) declared; a two-network property declares two", len(p.nets))
	}
	f, g := p.nets[0], p.nets[1]
	if len(p.rel.unsafe) == 0 {
		return nil, p.errorf(0, ErrIncomplete, "no output constraint on %s - %s", g.Output.Name, f.Output.Name)
	}
	if p.eqCount > 0 && p.eqCount < len(p.eqLine) {
		p.general("some input coordinates equated, not all")
	}
	for _, b := range p.outs {
		if !b.hasLo || !b.hasHi {
			p.general("an output difference bounded on one side")
		}
	}
	if p.rel.general {
		r, err := p.relational()
		if err != nil {
			return nil, err
		}
		return &Pair{F: *f, G: *g, Relational: r}, nil
	}
	pr := &Pair{F: *f, G: *g, Property: spec.Property{Same: p.eqCount > 0, Source: p.name}}
	if pr.Same {
		if err := p.sameInputs(); err != nil {
			return nil, err
		}
	}
	box, err := p.box(0)
	if err != nil {
		return nil, err
	}
	pr.Box = box
	if !pr.Same {
		if pr.BoxG, err = p.box(1); err != nil {
			return nil, err
		}
	}
	for k, b := range p.outs {
		pr.Outputs = append(pr.Outputs, b.outputBound(k))
	}
	slices.SortFunc(pr.Outputs, func(a, b spec.OutputBound) int { return a.K - b.K })
	return pr, nil
}

// sameInputs checks that every coordinate is equated and narrows f's
// bounds by g's.
func (p *pairParser) sameInputs() error {
	f, g := p.nets[0], p.nets[1]
	if len(p.x[0]) != len(p.x[1]) {
		return p.errorf(g.Input.Line, ErrUnsupported, "inputs %s %v and %s %v are equated but their shapes disagree",
			f.Input.Name, f.Input.Shape, g.Input.Name, g.Input.Shape)
	}
	for i, line := range p.eqLine {
		if line == 0 {
			return p.errorf(0, ErrUnsupported, "%d of the %d coordinates of %s are equated with %s, but not %s: equate every coordinate or none",
				p.eqCount, len(p.eqLine), f.Input.Name, g.Input.Name, f.Input.index(i))
		}
		in, gi := &p.x[0][i], p.x[1][i]
		if gi.hasLo && !in.tighten(gi.loLine, ">=", gi.lo) || gi.hasHi && !in.tighten(gi.hiLine, "<=", gi.hi) {
			return p.errorf(line, ErrIncomplete, "%s has an empty range: lower bound %v (line %d) > upper bound %v (line %d)",
				f.Input.index(i), in.lo, in.loLine, in.hi, in.hiLine)
		}
	}
	return nil
}

// box checks that network k's input is bounded and returns its box.
func (p *pairParser) box(k int) (spec.Box, error) {
	t := p.nets[k].Input
	box := spec.Box{Lo: make([]float64, len(p.x[k])), Hi: make([]float64, len(p.x[k]))}
	for i, in := range p.x[k] {
		switch {
		case !in.hasLo && !in.hasHi:
			return spec.Box{}, p.errorf(t.Line, ErrIncomplete, "%s has no bounds", t.index(i))
		case !in.hasLo:
			return spec.Box{}, p.errorf(t.Line, ErrIncomplete, "%s has no lower bound", t.index(i))
		case !in.hasHi:
			return spec.Box{}, p.errorf(t.Line, ErrIncomplete, "%s has no upper bound", t.index(i))
		}
		box.Lo[i], box.Hi[i] = in.lo, in.hi
	}
	return box, nil
}

// index returns the name of t's element of flat index k, as t[i,j].
func (t Tensor) index(k int) string {
	idx := make([]string, len(t.Shape))
	for a := len(t.Shape) - 1; a >= 0; a-- {
		idx[a] = strconv.Itoa(k % t.Shape[a])
		k /= t.Shape[a]
	}
	return t.Name + "[" + strings.Join(idx, ",") + "]"
}
