package spec

import (
	"math"
	"testing"
)

func TestOutputBound(t *testing.T) {
	closed := OutputBound{Lo: -0.05, Hi: 0.05}
	if eps, ok := closed.Eps(); !ok || eps != 0.05 {
		t.Errorf("Eps() = %v, %v", eps, ok)
	}
	open := OutputBound{Lo: -0.05, Hi: 0.05, StrictHi: true}
	if _, ok := open.Eps(); ok {
		t.Error("a strict bound has an eps")
	}
	for _, c := range []struct {
		b    OutputBound
		d    float64
		want bool
	}{{closed, 0.05, true}, {closed, -0.05, true}, {closed, 0.0500001, false}, {open, 0.05, false},
		{open, 0.049, true}, {open, -0.05, true}, {OutputBound{Lo: math.Inf(-1), Hi: 0}, -1e300, true}} {
		if got := c.b.Holds(c.d); got != c.want {
			t.Errorf("%+v.Holds(%v) = %v", c.b, c.d, got)
		}
	}
	p := &Property{Outputs: []OutputBound{{K: 1, Lo: -1, Hi: 1}}}
	if v, k := p.Violated([]float64{0, 0}, []float64{5, 1}); v || k != -1 {
		t.Errorf("Violated = %v, %d", v, k)
	}
	if v, k := p.Violated([]float64{0, 0}, []float64{0, 1.5}); !v || k != 1 {
		t.Errorf("Violated = %v, %d", v, k)
	}
}
