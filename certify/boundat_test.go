package certify

import (
	"math"
	"testing"

	"github.com/nnbound/nnbound/spec"
)

func TestBoundAtInf(t *testing.T) {
	// The gammas bound output 1 (the largest bound, 2) by sqrt(0.25) at
	// any input; output 0 keeps its bound 0.5 over the input set.
	c := &Certificate{Status: Certified, Bound: 2, RootBound: 2, Outputs: []float64{0.5, 2}, Quantity: spec.Quantity{Norm: spec.NormInf}}
	c.Gamma = 0.25
	if got := c.BoundAt([]float64{0}, []float64{0}); got != 0.5 {
		t.Errorf("BoundAt = %v, want 0.5", got)
	}
	c.Quantity.Norm = spec.Norm2
	if got := c.BoundAt([]float64{0}, []float64{0}); got != 0.5 {
		t.Errorf("2-norm pointBound = %v, want 0.5", got)
	}
}

func TestBoundAtSDPGammas(t *testing.T) {
	// The enclosure gave Bound 2, so the gammas are (4, 0, 0, 0); the
	// SDP's own gammas (1 + 100 ||x1 - x2||^2) are smaller where x2 is
	// near x1, and zero ones mean no SDP passed the check.
	sdpG := Gammas{Gamma: 1, GammaX: 100}
	cases := []struct {
		name   string
		sdp    Gammas
		x1, x2 float64
		want   float64
	}{
		{"x2 = x1", sdpG, 0.5, 0.5, 1},
		{"x2 near x1", sdpG, 0.5, 0.45, math.Sqrt(1 + 100*0.05*0.05)},
		{"x2 far from x1", sdpG, 0.5, 0.25, 2},
		{"no SDP", Gammas{}, 0.5, 0.5, 2},
	}
	for _, tc := range cases {
		c := &Certificate{Status: Certified, Bound: 2, RootBound: 2, Source: MethodPropagation, SDPGammas: tc.sdp}
		c.Gamma = 4
		if got := c.BoundAt([]float64{tc.x1}, []float64{tc.x2}); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: pointBound = %v, want %v", tc.name, got, tc.want)
		}
	}
}
