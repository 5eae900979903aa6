package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func sampleTable() *Table {
	t := NewTable("FB", "bound", "observed", "certified")
	t.AddRow("1", "0.5231", "0.412", "yes")
	t.AddRow("12", "1.2e-4", "9.8e-5", "no")
	t.AddRow("3", "-", "", "a|b")
	return t
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := sampleTable().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `FB   bound  observed  certified
--  ------  --------  ---------
 1  0.5231     0.412  yes
12  1.2e-4    9.8e-5  no
 3       -            a|b
`
	if b.String() != want {
		t.Errorf("text table\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	tab := sampleTable()
	tab.Align = []Align{Left}
	if err := tab.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	want := `| FB  |  bound | observed | certified |
| --- | -----: | -------: | --------- |
| 1   | 0.5231 |    0.412 | yes       |
| 12  | 1.2e-4 |   9.8e-5 | no        |
| 3   |      - |          | a\|b      |
`
	if b.String() != want {
		t.Errorf("markdown table\n%s\nwant\n%s", b.String(), want)
	}
}

func TestAddRowTooLong(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a row longer than the header")
		}
	}()
	NewTable("a").AddRow("1", "2")
}

func TestFloat(t *testing.T) {
	cases := []struct {
		x    float64
		sig  int
		want string
	}{
		{0.52314, 4, "0.5231"},
		{1.5e-7, 3, "1.5e-7"},
		{123456789, 3, "1.23e8"},
		{2e-300, 2, "2e-300"},
		{0, 3, "0"},
		{math.Inf(1), 3, "inf"},
		{math.Inf(-1), 3, "-inf"},
		{math.NaN(), 3, "NaN"},
	}
	for _, c := range cases {
		if got := Float(c.x, c.sig); got != c.want {
			t.Errorf("Float(%v, %d) = %q, want %q", c.x, c.sig, got, c.want)
		}
	}
	for _, c := range []struct {
		s    float64
		want string
	}{{0.01234, "0.0123 s"}, {1.519, "1.52 s"}, {152.6, "153 s"}} {
		if got := Seconds(c.s); got != c.want {
			t.Errorf("Seconds(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestJSON(t *testing.T) {
	v := struct {
		Bound    Number `json:"bound"`
		Observed Number `json:"observed_error"`
		Inf      Number `json:"inf"`
		Note     string `json:"note"`
	}{0.25, Number(math.NaN()), Number(math.Inf(1)), "a < b & c"}
	b, err := JSON(v)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"bound\": 0.25,\n  \"observed_error\": null,\n  \"inf\": null,\n  \"note\": \"a < b & c\"\n}\n"
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
	var back struct {
		Bound    Number `json:"bound"`
		Observed Number `json:"observed_error"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Bound != 0.25 || !math.IsNaN(float64(back.Observed)) {
		t.Errorf("round trip: %+v", back)
	}
	var w strings.Builder
	if err := WriteJSON(&w, map[string]int{"a": 1}); err != nil || w.String() != "{\n  \"schema\": 1,\n  \"a\": 1\n}\n" {
		t.Errorf("WriteJSON: %q, %v", w.String(), err)
	}
	if err := WriteJSON(&w, math.NaN()); err == nil {
		t.Error("no error for a bare NaN")
	}
}

func TestAlignString(t *testing.T) {
	for a, want := range map[Align]string{Auto: "auto", Left: "left", Right: "right", Align(5): "Align(5)"} {
		if got := a.String(); got != want {
			t.Errorf("Align(%d).String() = %q, want %q", int(a), got, want)
		}
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{{1.0024, "1.002"}, {math.NaN(), "-"}, {math.Inf(1), "-"}, {12, "12.000"}} {
		if got := Ratio(tc.x); got != tc.want {
			t.Errorf("Ratio(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}
