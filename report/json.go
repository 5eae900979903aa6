package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
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

// WriteJSON writes v to w as JSON.
func WriteJSON(w io.Writer, v any) error {
	b, err := JSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
