package jsonpos

import (
	"encoding/json"
	"testing"
)

func TestPosition(t *testing.T) {
	for _, c := range []struct {
		text      string
		want      string
		nonFinite bool
	}{
		{"{\"a\": [1,\n  NaN]}", ":2:3", true},
		{"[Infinity]", ":1:2", true},
		{"[1, 2,]", ":1:7", false},
		{"[1,", ":1:3", false},
		{`{"a": "x"}`, ":1:10", false}, // a type error: the value's end
	} {
		var v struct{ A []float64 }
		err := json.Unmarshal([]byte(c.text), &v)
		if err == nil {
			t.Fatalf("%q: no error", c.text)
		}
		if got := Position([]byte(c.text), err); got != c.want {
			t.Errorf("%q (%v): Position %q, want %q", c.text, err, got, c.want)
		}
		if got := NonFinite([]byte(c.text), err); got != c.nonFinite {
			t.Errorf("%q: NonFinite %v", c.text, got)
		}
	}
	if Position(nil, json.Unmarshal(nil, new(int))) != ":1:1" {
		t.Errorf("empty input")
	}
}
