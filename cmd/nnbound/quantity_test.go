package main

import (
	"math"
	"testing"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/search"
)

func TestQuantity(t *testing.T) {
	y1, y2 := []float64{1, 5, -2}, []float64{4, 1, -2} // differences -3, 4, 0
	cases := []struct {
		name       string
		norm       search.Norm
		c          []float64
		quantity   string
		axis       string
		want       float64
		outputsSet bool
	}{
		{"2-norm", search.Norm2, nil, "||f1(x1) - f2(x2)||_2", "||f1 - f2||", 5, false},
		{"inf-norm", search.NormInf, nil, "||f1(x1) - f2(x2)||_inf", "||f1 - f2||_inf", 4, false},
		{"output 1", search.Norm2, []float64{0, 1, 0}, "|f1_1(x1) - f2_1(x2)|", "|f1_1 - f2_1|", 4, false},
		{"output 0 under inf", search.NormInf, []float64{1, 0, 0}, "|f1_0(x1) - f2_0(x2)|", "|f1_0 - f2_0|", 3, false},
		{"margin", search.Norm2, []float64{1, -1, 0}, "|c^T (f1(x1) - f2(x2))|", "|c^T (f1 - f2)|", 7, false},
	}
	for _, tc := range cases {
		o := certify.DefaultOptions()
		o.Norm, o.C = tc.norm, tc.c
		if got := quantityName(o); got != tc.quantity {
			t.Errorf("%s: quantityName %q, want %q", tc.name, got, tc.quantity)
		}
		if got := axisName(o); got != tc.axis {
			t.Errorf("%s: axisName %q, want %q", tc.name, got, tc.axis)
		}
		if got := errorOf(y1, y2, o); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: errorOf %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSquareName(t *testing.T) {
	o := certify.DefaultOptions()
	c := &certify.Certificate{}
	if got := squareName(c, o); got != "||f1 - f2||^2" {
		t.Errorf("2-norm: %q", got)
	}
	o.Norm = search.NormInf
	c.Outputs = []float64{0.5, 2, 2, 1}
	if got := squareName(c, o); got != "(f1_1 - f2_1)^2" {
		t.Errorf("inf-norm: %q, want the first output with the largest bound", got)
	}
	o.C = []float64{0, 0, 1, 0}
	if got := squareName(c, o); got != "(f1_2 - f2_2)^2" {
		t.Errorf("output 2: %q", got)
	}
}

func TestPointBoundInf(t *testing.T) {
	// The gammas bound output 1 (the largest bound, 2) by sqrt(0.25) at
	// any input; output 0 keeps its bound 0.5 over the input set.
	o := certify.DefaultOptions()
	o.Norm = search.NormInf
	c := &certify.Certificate{Certified: true, Bound: 2, RootBound: 2, Outputs: []float64{0.5, 2}}
	c.Gamma = 0.25
	if got := pointBound(c, o, []float64{0}, []float64{0}); got != 0.5 {
		t.Errorf("pointBound = %v, want 0.5", got)
	}
	o.Norm = search.Norm2
	if got := pointBound(c, o, []float64{0}, []float64{0}); got != 0.5 {
		t.Errorf("2-norm pointBound = %v, want 0.5", got)
	}
}
