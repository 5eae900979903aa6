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
	for _, c := range []struct {
		b               OutputBound
		lo, hi          float64
		inside, outside bool
	}{
		{closed, -0.05, 0.05, true, false}, {closed, 0.05, 0.06, false, false}, {closed, 0.0500001, 1, false, true},
		{open, 0.05, 0.06, false, true}, {open, -0.06, -0.05, false, false}, {open, -0.06, -0.0500001, false, true},
		{open, -0.04, 0.049, true, false},
	} {
		if in, out := c.b.Inside(c.lo, c.hi), c.b.Outside(c.lo, c.hi); in != c.inside || out != c.outside {
			t.Errorf("%+v on [%v, %v]: inside %v, outside %v", c.b, c.lo, c.hi, in, out)
		}
	}
}
