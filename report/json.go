package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/nnbound/nnbound/internal/schema"
)

// Number is a float64 that encodes to JSON as a number when finite and as
// null otherwise (NaN for a quantity that was not computed, or an
// infinite bound), where encoding/json would fail.
type Number float64

// MarshalJSON implements json.Marshaler.
func (n Number) MarshalJSON() ([]byte, error) {
	x := float64(n)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler; null decodes as NaN.
func (n *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Number(math.NaN())
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*n = Number(x)
	return nil
}

// JSON encodes v as indented JSON with a trailing newline, without
// escaping <, > and & (the output is read by people and programs, not
// embedded in HTML).
func JSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Schema is the version of the JSON documents nnbound prints
// (schema.Version, docs/json.md): every document WriteJSON writes starts
// with "schema": Schema.
const Schema = schema.Version

// WriteJSON writes v to w as a JSON document: v's encoding (JSON), with
// "schema": Schema first when v encodes to an object.
func WriteJSON(w io.Writer, v any) error {
	b, err := JSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(withSchema(b))
	return err
}

// withSchema returns the encoded document b with the schema field first
// when b is an object, b itself otherwise.
func withSchema(b []byte) []byte {
	if len(b) < 2 || b[0] != '{' {
		return b
	}
	field := "\n  \"schema\": " + strconv.Itoa(Schema)
	rest := bytes.TrimLeft(b[1:], " \n")
	if len(rest) > 0 && rest[0] == '}' { // an empty object
		return append([]byte("{"+field+"\n"), rest...)
	}
	return append([]byte("{"+field+","), b[1:]...)
}
