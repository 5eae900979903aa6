package sdpa

import (
	"fmt"
	"strconv"
	"strings"
)

// parser walks the input line by line.
type parser struct {
	name string
	data string
	pos  int      // offset of the next line
	line int      // number of the current line
	tok  []string // fields of the current line (reused)

	startLine int // number of the line before the first entry line
}

// next advances to the next line and returns it without its newline; ok is
// false at the end of the input.
func (p *parser) next() (line string, ok bool) {
	if p.pos >= len(p.data) {
		return "", false
	}
	rest := p.data[p.pos:]
	n := strings.IndexByte(rest, '\n')
	if n < 0 {
		n = len(rest)
		p.pos = len(p.data)
	} else {
		p.pos += n + 1
	}
	p.line++
	return rest[:n], true
}

// fields splits line at spaces and the punctuation , { } ( ) into p.tok.
func (p *parser) fields(line string) []string {
	p.tok = p.tok[:0]
	start := -1
	for i := 0; i < len(line); i++ {
		if isSep(line[i]) {
			if start >= 0 {
				p.tok = append(p.tok, line[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		p.tok = append(p.tok, line[start:])
	}
	return p.tok
}

func isSep(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\v', '\f', ',', '{', '}', '(', ')':
		return true
	}
	return false
}

// errorf returns a *ParseError at the current line.
func (p *parser) errorf(sentinel error, format string, a ...any) error {
	return &ParseError{File: p.name, Line: p.line, Msg: fmt.Sprintf(format, a...), Err: sentinel}
}

// eofError reports that the input ended while want was expected.
func (p *parser) eofError(want string) error {
	line := p.line
	if line == 0 {
		return &ParseError{File: p.name, Line: 1, Msg: "empty file, want " + want}
	}
	return &ParseError{File: p.name, Line: line, Msg: "unexpected end of file, want " + want}
}

// intPrefix parses the integer at the start of s: an optional sign and at
// least one digit. rest is what follows; ok is false when s does not start
// with an integer or its magnitude exceeds maxBlockSize.
func intPrefix(s string) (v int, rest string, ok bool) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		v = v*10 + int(s[i]-'0')
		if v > maxBlockSize {
			return 0, s, false
		}
	}
	if i == start {
		return 0, s, false
	}
	if neg {
		v = -v
	}
	return v, s[i:], true
}

// parseInt parses a whole field as an integer.
func parseInt(s string) (int, bool) {
	v, rest, ok := intPrefix(s)
	return v, ok && rest == ""
}

// parseFloat parses a whole field as a number, also accepting Fortran's
// D exponent (1.5D+00).
func parseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && strings.ContainsAny(s, "dD") && !strings.ContainsAny(s, "xX") {
		v, err = strconv.ParseFloat(strings.NewReplacer("d", "e", "D", "e").Replace(s), 64)
	}
	return v, err
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}
