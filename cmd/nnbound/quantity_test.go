package main

import (
	"testing"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/spec"
)

func TestQuantity(t *testing.T) {
	cases := []struct {
		name   string
		norm   spec.Norm
		c      []float64
		axis   string
		square string
	}{
		{"2-norm", spec.Norm2, nil, "||f1 - f2||", "||f1 - f2||^2"},
		{"inf-norm", spec.NormInf, nil, "||f1 - f2||_inf", "|f1_1 - f2_1|^2"},
		{"output 1", spec.Norm2, []float64{0, 1, 0}, "|f1_1 - f2_1|", "|f1_1 - f2_1|^2"},
		{"output 0 under inf", spec.NormInf, []float64{1, 0, 0}, "|f1_0 - f2_0|", "|f1_0 - f2_0|^2"},
		{"margin", spec.Norm2, []float64{1, -1, 0}, "|c^T (f1 - f2)|", "|c^T (f1 - f2)|^2"},
	}
	for _, tc := range cases {
		c := &certify.Certificate{Quantity: spec.Quantity{Norm: tc.norm, C: tc.c}}
		if tc.c == nil && tc.norm == spec.NormInf {
			c.Outputs = []float64{0.5, 2, 2} // the first largest is output 1
		}
		if got := experiment.AxisName(c); got != tc.axis {
			t.Errorf("%s: axisName %q, want %q", tc.name, got, tc.axis)
		}
		if got := experiment.SquareName(c); got != tc.square {
			t.Errorf("%s: squareName %q, want %q", tc.name, got, tc.square)
		}
	}
}
