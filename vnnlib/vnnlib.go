// Package vnnlib reads the input set of a VNN-LIB property file, the format
// of the neural-network verification competitions (VNN-COMP), as a box.
//
// A property declares the inputs X_0 ... X_{n-1} and outputs Y_0 ... of a
// network and asserts constraints on them:
//
//	; ACAS Xu property 1
//	(declare-const X_0 Real)
//	(declare-const Y_0 Real)
//	(assert (<= X_0 0.679857769))
//	(assert (>= X_0 0.6))
//	(assert (and (<= -0.5 X_1) (<= X_1 0.5)))
//	(assert (<= Y_0 3.991125645861615))
//
// nnbound needs only the input set. Read accepts, for each input, bounds of
// the form (<= X_i c), (>= X_i c), with the constant on either side, the
// strict forms < and > (read as closed: a bound over the closure of a set
// holds on the set), (= X_i c), chains such as (<= lo X_i hi), and any
// nesting of them under and. Constants are decimal numbers, optionally
// written (- c) or (/ a b). Each input ends up with the tightest lower and
// upper bound asserted for it, and every declared input must have both.
//
// Assertions that mention only outputs are the property's unsafe region; a
// bound on the output difference does not use it, so they are skipped and
// counted in Spec.IgnoredOutputAssertions (see Spec.Note). Everything else
// is an error naming the line: a disjunction (or) involving inputs, a
// bound that is not a constant, a constraint coupling inputs with each
// other or with outputs, an undeclared or undeclarable variable, an input
// with no lower or upper bound, or an empty interval.
//
// VNN-LIB 2.0 properties over two networks (equivalence benchmarks: a
// network f and its compressed copy g, the same input, and a bound on each
// output difference) are read by ReadPair into a Pair: the networks'
// declarations and the property they state, a spec.Property, the value
// package verify decides. ReadProperty reads a file of either version in
// one pass. See pair.go for the subset accepted and its reading.
//
// The functions reading a file by its path read gzipped files too
// (s.vnnlib.gz, or any file starting with the gzip magic bytes), and
// s.vnnlib.gz for s.vnnlib when s.vnnlib is missing or differs from it, as
// VNN-COMP's benchmark folders ship them (internal/gzfile).
package vnnlib

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nnbound/nnbound/spec"
)

// ErrSyntax reports text that is not a well-formed S-expression.
var ErrSyntax = errors.New("syntax error")

// ErrUnsupported reports a construct outside the box subset Read accepts.
var ErrUnsupported = errors.New("unsupported construct")

// ErrIncomplete reports a declared input without a lower or upper bound,
// or a file declaring no inputs.
var ErrIncomplete = errors.New("incomplete input set")

// Error is a parse error at a line of a file. Its text has the form
// "file:line: message"; Err is one of the package's sentinels.
type Error struct {
	File string
	Line int // 1-based; 0 when the error concerns the whole file
	Msg  string
	Err  error
}

// Error returns "file:line: message", or "file: message" without a line.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Unwrap returns the sentinel, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// Spec is the input set of a property.
type Spec struct {
	// Box holds the bounds of X_0 ... X_{n-1}.
	Box spec.Box
	// Outputs is the number of declared outputs Y_j.
	Outputs int
	// IgnoredOutputAssertions counts the assertions over outputs only,
	// which Read skips.
	IgnoredOutputAssertions int
	// outs holds those assertions, for Relational; file names the file.
	outs []*node
	file string
}

// Note returns a one-line remark about what Read skipped, or "".
func (s *Spec) Note() string {
	switch n := s.IgnoredOutputAssertions; n {
	case 0:
		return ""
	case 1:
		return "ignored 1 assertion on the outputs Y_j (only the input box is read)"
	default:
		return fmt.Sprintf("ignored %d assertions on the outputs Y_j (only the input box is read)", n)
	}
}

// ReadFile reads the property in the file at path. Errors name the file by
// its base name.
func ReadFile(path string) (*Spec, error) { return readFile(path, Read) }

// Read reads a property from r; name is the file name used in errors.
func Read(r io.Reader, name string) (*Spec, error) {
	rd := newReader(r, name)
	n, err := rd.next()
	if err != nil {
		return nil, err
	}
	return readSpec(rd, n, name)
}

// readSpec reads a VNN-LIB 1 property whose first command, n, rd has
// read.
func readSpec(rd *reader, n *node, name string) (*Spec, error) {
	p := &parser{name: name, x: map[int]*input{}, y: map[int]bool{}}
	if err := readAll(rd, n, p); err != nil {
		return nil, err
	}
	return p.spec()
}

// input is what is known of X_i.
type input struct {
	line int // declaration
	span     // its range, strict comparisons read as closed (tighten)
}

// parser collects the declarations and bounds of a property, one
// top-level command at a time.
type parser struct {
	name    string
	x       map[int]*input
	y       map[int]bool
	ignored int
	outs    []*node // the assertions over outputs only
}

// errorf returns an error at line wrapping sentinel.
func (p *parser) errorf(line int, sentinel error, format string, a ...any) error {
	return &Error{File: p.name, Line: line, Msg: fmt.Sprintf(format, a...), Err: sentinel}
}

// command handles one top-level form.
func (p *parser) command(n *node) error {
	switch h := n.head(); h {
	case "declare-const":
		return p.declare(n)
	case "assert":
		if len(n.list) != 2 {
			return p.errorf(n.line, ErrSyntax, "assert takes one expression, got %d", len(n.list)-1)
		}
		return p.assert(n.list[1])
	case "set-logic", "set-info", "set-option", "check-sat", "get-model", "exit":
		return nil
	case "":
		return p.errorf(n.line, ErrSyntax, "expected a command such as (assert ...), got %s", n)
	default:
		return p.errorf(n.line, ErrUnsupported, "command %q is not supported", h)
	}
}

// declare handles (declare-const X_i Real) and (declare-const Y_j Real).
func (p *parser) declare(n *node) error {
	if len(n.list) != 3 || n.list[1].isList || n.list[2].isList {
		return p.errorf(n.line, ErrSyntax, "want (declare-const NAME Real), got %s", n)
	}
	if t := n.list[2].atom; t != "Real" {
		return p.errorf(n.line, ErrUnsupported, "variable %s has type %s; only Real is supported", n.list[1].atom, t)
	}
	isX, i, ok := variable(n.list[1].atom)
	if !ok {
		return p.errorf(n.line, ErrUnsupported, "variable name %q: want X_i for inputs or Y_j for outputs", n.list[1].atom)
	}
	if isX {
		if old, dup := p.x[i]; dup {
			return p.errorf(n.line, ErrSyntax, "X_%d declared again (first on line %d)", i, old.line)
		}
		p.x[i] = &input{line: n.line}
		return nil
	}
	if p.y[i] {
		return p.errorf(n.line, ErrSyntax, "Y_%d declared again", i)
	}
	p.y[i] = true
	return nil
}

// maxIndex bounds variable indices so that a corrupt file cannot ask for a
// huge box.
const maxIndex = 1 << 24

// variable parses X_i or Y_j.
func variable(s string) (isX bool, i int, ok bool) {
	var digits string
	switch {
	case strings.HasPrefix(s, "X_"):
		isX, digits = true, s[2:]
	case strings.HasPrefix(s, "Y_"):
		digits = s[2:]
	default:
		return false, 0, false
	}
	if digits == "" || (len(digits) > 1 && digits[0] == '0') {
		return false, 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false, 0, false
		}
	}
	i, err := strconv.Atoi(digits)
	if err != nil || i >= maxIndex {
		return false, 0, false
	}
	return isX, i, true
}

// spec checks that every input is bounded and builds the box.
func (p *parser) spec() (*Spec, error) {
	if len(p.x) == 0 {
		return nil, p.errorf(0, ErrIncomplete, "no inputs declared (want (declare-const X_0 Real) ...)")
	}
	n := len(p.x)
	box := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range n {
		in, ok := p.x[i]
		if !ok {
			return nil, p.errorf(0, ErrIncomplete, "%d inputs declared but X_%d is missing", n, i)
		}
		switch {
		case !in.hasLo && !in.hasHi:
			return nil, p.errorf(in.line, ErrIncomplete, "X_%d has no bounds (want (>= X_%d lo) and (<= X_%d hi))", i, i, i)
		case !in.hasLo:
			return nil, p.errorf(in.line, ErrIncomplete, "X_%d has no lower bound", i)
		case !in.hasHi:
			return nil, p.errorf(in.line, ErrIncomplete, "X_%d has no upper bound", i)
		}
		box.Lo[i], box.Hi[i] = in.lo, in.hi
	}
	return &Spec{Box: box, Outputs: len(p.y), IgnoredOutputAssertions: p.ignored, outs: p.outs, file: p.name}, nil
}
