package spec

import (
	"errors"
	"math"
	"testing"
)

// TestToleranceJudge checks Judge on enclosures that lie past, below and
// across the epsilons, in every norm.
func TestToleranceJudge(t *testing.T) {
	cases := []struct {
		name             string
		tol              Tolerance
		lo, hi           []float64
		exceeds, within  bool
		measLo, measHigh float64
	}{
		{"per-output past", Tolerance{Norm: PerOutput, Eps: []float64{1, 0.5}}, []float64{0, -0.7}, []float64{0.1, -0.6}, true, false, 0.6, 0.7},
		{"per-output below", Tolerance{Norm: PerOutput, Eps: []float64{1, 0.5}}, []float64{-0.9, -0.4}, []float64{0.9, 0.4}, false, true, 0, 0.9},
		{"per-output across", Tolerance{Norm: PerOutput, Eps: []float64{1, 0.5}}, []float64{0, 0.4}, []float64{0, 0.6}, false, false, 0.4, 0.6},
		{"per-output not compared", Tolerance{Norm: PerOutput, Eps: []float64{1}, Outputs: []int{0}}, []float64{0, 5}, []float64{0, 6}, false, true, 0, 0},
		{"inf at eps", Tolerance{Norm: NormInf, Eps: []float64{1}}, []float64{1, 0}, []float64{1, 0}, false, false, 1, 1},
		{"inf past", Tolerance{Norm: NormInf, Eps: []float64{1}}, []float64{-3, 0}, []float64{-2, 0}, true, false, 2, 3},
		{"2 past", Tolerance{Norm: Norm2, Eps: []float64{4.9}}, []float64{3, 4}, []float64{3, 4}, true, false, 5, 5},
		{"2 below", Tolerance{Norm: Norm2, Eps: []float64{5.1}}, []float64{3, -4}, []float64{3, -4}, false, true, 5, 5},
		{"2 at eps", Tolerance{Norm: Norm2, Eps: []float64{5}}, []float64{3, 4}, []float64{3, 4}, false, false, 5, 5},
	}
	for _, c := range cases {
		mlo, mhi, exceeds, within := c.tol.Judge(c.lo, c.hi)
		if exceeds != c.exceeds || within != c.within {
			t.Errorf("%s: exceeds %v, within %v, want %v, %v", c.name, exceeds, within, c.exceeds, c.within)
		}
		if !(mlo <= c.measLo && c.measHigh <= mhi) || mhi-mlo > c.measHigh-c.measLo+1e-12 {
			t.Errorf("%s: measure in [%v, %v], want about [%v, %v]", c.name, mlo, mhi, c.measLo, c.measHigh)
		}
		if err := c.tol.Validate(2); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestToleranceMeasure checks Measure and Ratio against Quantity.Measure.
func TestToleranceMeasure(t *testing.T) {
	d := []float64{3, -4}
	if got := (Tolerance{Norm: Norm2, Eps: []float64{10}}).Measure(d); got != 5 {
		t.Errorf("2-norm measure %v, want 5", got)
	}
	if got := (Tolerance{Norm: PerOutput, Eps: []float64{1}, Outputs: []int{0}}).Measure(d); got != 3 {
		t.Errorf("per-output measure over output 0: %v, want 3", got)
	}
	tol := Tolerance{Norm: PerOutput, Eps: []float64{1, 8}}
	if got := tol.Ratio(d, tol.Compared(2)); got != 3 {
		t.Errorf("ratio %v, want 3", got)
	}
	if got, want := tol.Measure(d), tol.Quantity().Measure(d, []float64{0, 0}); got != want {
		t.Errorf("measure %v, quantity's %v", got, want)
	}
}

// TestToleranceValidate checks each error of Validate.
func TestToleranceValidate(t *testing.T) {
	for _, tol := range []Tolerance{
		{},
		{Norm: Norm(7), Eps: []float64{1}},
		{Norm: PerOutput, Eps: []float64{0}},
		{Norm: PerOutput, Eps: []float64{math.Inf(1)}},
		{Norm: PerOutput, Eps: []float64{1, 2, 3}},
		{Norm: Norm2, Eps: []float64{1, 2}},
		{Norm: PerOutput, Eps: []float64{1}, Outputs: []int{2}},
		{Norm: PerOutput, Eps: []float64{1}, Outputs: []int{0, 0}},
		{Norm: PerOutput, Eps: []float64{1}, Outputs: []int{}},
		{Norm: NormInf, Eps: []float64{1}, Outputs: []int{0}},
	} {
		if err := tol.Validate(2); !errors.Is(err, ErrTolerance) {
			t.Errorf("%+v: error %v, want ErrTolerance", tol, err)
		}
	}
}
