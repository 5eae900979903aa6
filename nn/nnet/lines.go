package nnet

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nnbound/nnbound/nn"
)

// lineReader yields the data lines of an NNet file (comments starting with
// "//" and blank lines are skipped) with their 1-based line numbers.
type lineReader struct {
	name string
	data []byte
	line int // number of the line last returned
}

// next returns the next data line, or ok = false at the end of the data.
func (r *lineReader) next() (text string, ok bool) {
	for len(r.data) > 0 {
		var raw []byte
		raw, r.data, _ = bytes.Cut(r.data, []byte{'\n'})
		r.line++
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.HasPrefix(raw, []byte("//")) {
			continue
		}
		return string(raw), true
	}
	return "", false
}

// leadingComments consumes the comment and blank lines at the start of the
// data and returns the comments' text without the leading "//".
func (r *lineReader) leadingComments() []string {
	var out []string
	for len(r.data) > 0 {
		raw, rest, _ := bytes.Cut(r.data, []byte{'\n'})
		t := bytes.TrimSpace(raw)
		if len(t) > 0 && !bytes.HasPrefix(t, []byte("//")) {
			return out
		}
		if len(t) > 0 {
			out = append(out, string(t[2:]))
		}
		r.data = rest
		r.line++
	}
	return out
}

// errorf returns an error naming the file and the current line and
// wrapping ErrFormat (and whatever format itself wraps with %w).
func (r *lineReader) errorf(format string, a ...any) error {
	args := append([]any{r.name, r.line}, a...)
	return fmt.Errorf("nnet: %s:%d: "+format+": %w", append(args, ErrFormat)...)
}

// mustLine returns the next data line, or an error saying what was expected.
func (r *lineReader) mustLine(what string) (string, error) {
	text, ok := r.next()
	if !ok {
		return "", fmt.Errorf("nnet: %s:%d: file ends before %s: %w", r.name, r.line, what, ErrFormat)
	}
	return text, nil
}

// fields splits a comma-separated line, dropping one trailing empty field
// (the format ends every line with a comma). fn is called with each field.
func fields(text string, fn func(i int, f string) error) (int, error) {
	text = strings.TrimSuffix(strings.TrimSpace(text), ",")
	n := 0
	for {
		f, rest, more := strings.Cut(text, ",")
		if err := fn(n, strings.TrimSpace(f)); err != nil {
			return n, err
		}
		n++
		if !more {
			return n, nil
		}
		text = rest
	}
}

// ints parses a line of integers.
func (r *lineReader) ints(text, what string) ([]int, error) {
	var v []int
	_, err := fields(text, func(i int, f string) error {
		x, err := strconv.Atoi(f)
		if err != nil {
			return r.errorf("%s: value %d is %s, not an integer", what, i+1, clip(f))
		}
		v = append(v, x)
		return nil
	})
	return v, err
}

// floats parses a line of at most limit numbers (for header lines) into a
// new slice; infinities are allowed, NaN is not.
func (r *lineReader) floats(text, what string, limit int) ([]float64, error) {
	var v []float64
	_, err := fields(text, func(i int, f string) error {
		if i >= limit {
			return r.errorf("%s has more than %d values", what, limit)
		}
		x, err := parseFloat(f)
		if err != nil || math.IsNaN(x) {
			return r.errorf("%s: value %d is %s, not a number", what, i+1, clip(f))
		}
		v = append(v, x)
		return nil
	})
	return v, err
}

// nextRow reads the next data line into dst (see row); what names the line
// in errors.
func (r *lineReader) nextRow(what string, dst []float64) error {
	text, err := r.mustLine(what)
	if err != nil {
		return err
	}
	return r.row(text, what, dst)
}

// row parses a line of exactly len(dst) finite numbers into dst.
func (r *lineReader) row(text, what string, dst []float64) error {
	n, err := fields(text, func(i int, f string) error {
		if i >= len(dst) {
			return r.errorf("%s has more than %d values", what, len(dst))
		}
		x, err := parseFloat(f)
		if err != nil {
			return r.errorf("%s: value %d is %s, not a number", what, i+1, clip(f))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return r.errorf("%s: value %d is %v: %w", what, i+1, x, nn.ErrNotFinite)
		}
		dst[i] = x
		return nil
	})
	if err != nil {
		return err
	}
	if n != len(dst) {
		return r.errorf("%s has %d values, want %d", what, n, len(dst))
	}
	return nil
}

// parseFloat parses a decimal number, correctly rounded to float64 (so a
// float16 or float32 value written exactly comes back exactly). A magnitude
// beyond the float64 range is an error; "inf" and "-inf" are infinities.
func parseFloat(f string) (float64, error) {
	return strconv.ParseFloat(f, 64)
}

// clip quotes a field for an error message, cut to 24 bytes so that a
// binary file does not flood the terminal.
func clip(f string) string {
	if len(f) > 24 {
		return strconv.Quote(f[:24]) + "..."
	}
	return strconv.Quote(f)
}
