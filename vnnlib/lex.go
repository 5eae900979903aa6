package vnnlib

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// node is an S-expression: an atom (list == nil and !isList) or a list.
type node struct {
	atom   string
	list   []*node
	isList bool
	line   int
}

// String prints n back as an S-expression (for error messages).
func (n *node) String() string {
	if !n.isList {
		return n.atom
	}
	parts := make([]string, len(n.list))
	for i, c := range n.list {
		parts[i] = c.String()
	}
	s := "(" + strings.Join(parts, " ") + ")"
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// head returns the first atom of a list, or "".
func (n *node) head() string {
	if !n.isList || len(n.list) == 0 || n.list[0].isList {
		return ""
	}
	return n.list[0].atom
}

// maxLine bounds the length of one line, so that a binary file fed as
// VNN-LIB is an error and not a huge allocation.
const maxLine = 1 << 20

// reader turns VNN-LIB text into top-level S-expressions, skipping
// comments (from ';' to the end of the line).
type reader struct {
	sc   *bufio.Scanner
	name string
	line int    // line of rest
	rest string // unread part of the current line
}

// newReader returns a reader of r; name is the file name used in errors.
func newReader(r io.Reader, name string) *reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	return &reader{sc: sc, name: name}
}

// token returns the next token ("(", ")" or an atom) and its line, or ""
// at the end of the input.
func (r *reader) token() (string, int, error) {
	for {
		r.rest = strings.TrimLeft(r.rest, " \t\r\f\v")
		if r.rest == "" || r.rest[0] == ';' {
			if !r.sc.Scan() {
				if err := r.sc.Err(); err != nil {
					return "", r.line + 1, fmt.Errorf("line too long or unreadable: %w", err)
				}
				return "", r.line, nil
			}
			r.line++
			r.rest = r.sc.Text()
			continue
		}
		switch c := r.rest[0]; c {
		case '(', ')':
			r.rest = r.rest[1:]
			return string(c), r.line, nil
		case '|', '"':
			return "", r.line, fmt.Errorf("quoted symbols and strings are not supported")
		}
		end := strings.IndexAny(r.rest, " \t\r\f\v();")
		if end < 0 {
			end = len(r.rest)
		}
		tok := r.rest[:end]
		r.rest = r.rest[end:]
		for _, c := range []byte(tok) {
			if c < 0x21 || c > 0x7e {
				return "", r.line, fmt.Errorf("unexpected byte 0x%02x", c)
			}
		}
		return tok, r.line, nil
	}
}

// maxDepth bounds the nesting of S-expressions.
const maxDepth = 64

// next returns the next top-level S-expression, or nil at the end.
func (r *reader) next() (*node, error) {
	tok, line, err := r.token()
	if err != nil {
		return nil, r.errorf(line, "%v", err)
	}
	switch tok {
	case "":
		return nil, nil
	case ")":
		return nil, r.errorf(line, "unexpected ')'")
	case "(":
		return r.list(line, 1)
	}
	return nil, r.errorf(line, "unexpected %q outside parentheses", tok)
}

// list reads the rest of a list opened on line.
func (r *reader) list(line, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, r.errorf(line, "expressions nested deeper than %d", maxDepth)
	}
	n := &node{isList: true, line: line}
	for {
		tok, l, err := r.token()
		if err != nil {
			return nil, r.errorf(l, "%v", err)
		}
		switch tok {
		case "":
			return nil, r.errorf(line, "unclosed '(' (end of file reached)")
		case ")":
			return n, nil
		case "(":
			c, err := r.list(l, depth+1)
			if err != nil {
				return nil, err
			}
			n.list = append(n.list, c)
		default:
			n.list = append(n.list, &node{atom: tok, line: l})
		}
	}
}

// errorf returns a syntax error at line.
func (r *reader) errorf(line int, format string, a ...any) error {
	return &Error{File: r.name, Line: line, Msg: fmt.Sprintf(format, a...), Err: ErrSyntax}
}
