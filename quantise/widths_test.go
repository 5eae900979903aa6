package quantise

import (
	"slices"
	"strings"
	"testing"
)

// TestParseWidths covers the three forms and each kind of bad list.
func TestParseWidths(t *testing.T) {
	for _, c := range []struct {
		s    string
		want []int
		err  string // part of the error, "" if none
	}{
		{"4", []int{4}, ""},
		{"2:5", []int{2, 3, 4, 5}, ""},
		{"8, 2,8,4", []int{8, 2, 4}, ""},
		{"0", nil, "0 fractional bits"},
		{"1:99", nil, "53 fractional bits"},
		{"5:2", nil, "inverted"},
		{"a:3", nil, `"a" is not a whole number`},
		{"2,,3", nil, `"" is not a whole number`},
		{"", nil, "not a whole number"},
	} {
		got, err := ParseWidths(c.s)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.s, err)
		case c.err == "" && !slices.Equal(got, c.want):
			t.Errorf("%q: got %v, want %v", c.s, got, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "quantise: ")):
			t.Errorf("%q: error %v, want one with %q", c.s, err, c.err)
		}
	}
}
