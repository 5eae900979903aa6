package main

import (
	"math"
	"testing"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
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
		c := &certify.Certificate{Norm: tc.norm, C: tc.c}
		if tc.c == nil && tc.norm == spec.NormInf {
			c.Outputs = []float64{0.5, 2, 2} // the first largest is output 1
		}
		if got := axisName(c); got != tc.axis {
			t.Errorf("%s: axisName %q, want %q", tc.name, got, tc.axis)
		}
		if got := squareName(c); got != tc.square {
			t.Errorf("%s: squareName %q, want %q", tc.name, got, tc.square)
		}
	}
}

func TestPointBoundInf(t *testing.T) {
	// The gammas bound output 1 (the largest bound, 2) by sqrt(0.25) at
	// any input; output 0 keeps its bound 0.5 over the input set.
	o := certjob.Default()
	o.Norm = spec.NormInf
	c := &certify.Certificate{Certified: true, Bound: 2, RootBound: 2, Outputs: []float64{0.5, 2}}
	c.Gamma = 0.25
	if got := pointBound(c, o, []float64{0}, []float64{0}); got != 0.5 {
		t.Errorf("pointBound = %v, want 0.5", got)
	}
	o.Norm = spec.Norm2
	if got := pointBound(c, o, []float64{0}, []float64{0}); got != 0.5 {
		t.Errorf("2-norm pointBound = %v, want 0.5", got)
	}
}

func TestPointBoundSDPGammas(t *testing.T) {
	// The enclosure gave Bound 2, so the gammas are (4, 0, 0, 0); the
	// SDP's own gammas (1 + 100 ||x1 - x2||^2) are smaller where x2 is
	// near x1, and zero ones mean no SDP passed the check.
	o := certjob.Default()
	sdpG := certify.Gammas{Gamma: 1, GammaX: 100}
	cases := []struct {
		name   string
		sdp    certify.Gammas
		x1, x2 float64
		want   float64
	}{
		{"x2 = x1", sdpG, 0.5, 0.5, 1},
		{"x2 near x1", sdpG, 0.5, 0.45, math.Sqrt(1 + 100*0.05*0.05)},
		{"x2 far from x1", sdpG, 0.5, 0.25, 2},
		{"no SDP", certify.Gammas{}, 0.5, 0.5, 2},
	}
	for _, tc := range cases {
		c := &certify.Certificate{Certified: true, Bound: 2, RootBound: 2, Source: certify.MethodPropagation, SDPGammas: tc.sdp}
		c.Gamma = 4
		if got := pointBound(c, o, []float64{tc.x1}, []float64{tc.x2}); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: pointBound = %v, want %v", tc.name, got, tc.want)
		}
	}
}
