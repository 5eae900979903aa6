// Package jsonpos places the errors of encoding/json in the text they came
// from, for messages of the form file:line:col.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Position returns ":line:col" (1-based, col in bytes) for JSON syntax and
// type errors of data, "" for others.
func Position(data []byte, err error) string {
	off, ok := offset(data, err)
	if !ok {
		return ""
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf(":%d:%d", line, col)
}

// NonFinite reports whether err, a syntax error of data, stops at NaN or
// Infinity, which Python's json module writes for non-finite floats and
// JSON does not have.
func NonFinite(data []byte, err error) bool {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return false
	}
	off, _ := offset(data, err)
	rest := data[off:]
	return bytes.HasPrefix(rest, []byte("NaN")) || bytes.HasPrefix(rest, []byte("Infinity"))
}

// offset returns the offset in data of the byte err is about.
func offset(data []byte, err error) (int, bool) {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // the offending byte
	case errors.As(err, &te):
		off = te.Offset
	default:
		return 0, false
	}
	return int(min(max(off, 0), int64(len(data)))), true
}
