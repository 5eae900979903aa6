package report

import (
	"bytes"
	"math"
	"testing"
)

// TestWriteOutput: text and JSON of finite outputs, and an error for an
// overflow in JSON.
func TestWriteOutput(t *testing.T) {
	for _, c := range []struct {
		y    []float64
		json bool
		want string
	}{
		{[]float64{0.5, -2, 1e-30}, false, "0.5 -2 1e-30\n"},
		{[]float64{0.5, -2}, true, `{"schema":1,"output":[0.5,-2]}` + "\n"},
		{[]float64{math.Inf(1)}, false, "+Inf\n"},
	} {
		var buf bytes.Buffer
		if err := WriteOutput(&buf, c.y, c.json); err != nil || buf.String() != c.want {
			t.Errorf("%v json %v: %q, %v; want %q", c.y, c.json, buf.String(), err, c.want)
		}
	}
	var buf bytes.Buffer
	if err := WriteOutput(&buf, []float64{1, math.NaN()}, true); err == nil || buf.Len() != 0 {
		t.Errorf("NaN in JSON: %v, wrote %q", err, buf.String())
	}
}
