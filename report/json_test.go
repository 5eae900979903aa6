package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestWriteJSONSchema(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{struct {
			A int `json:"a"`
		}{1}, "{\n  \"schema\": 1,\n  \"a\": 1\n}\n"},
		{struct{}{}, "{\n  \"schema\": 1\n}\n"},
		{[]int{1}, "[\n  1\n]\n"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		if err := WriteJSON(&b, c.v); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("WriteJSON(%v) = %q, want %q", c.v, b.String(), c.want)
		}
		var m any
		if err := json.Unmarshal(b.Bytes(), &m); err != nil {
			t.Errorf("WriteJSON(%v) is not JSON: %v", c.v, err)
		}
	}
}
