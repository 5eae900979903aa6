package search

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
)

// TestReforwardMatchesForward: one Trace re-evaluated at point after point
// gives Forward's outputs and gradients to the bit, and reports a wrong
// input size.
func TestReforwardMatchesForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	f := boundstest.Network(rng, []int{3, 8, 8, 2}, 1)
	tr := NewTrace(f)
	if _, err := tr.Reforward([]float64{1}); err == nil {
		t.Fatal("Reforward took 1 input for a network of 3")
	}
	for trial := range 20 {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		v := []float64{rng.NormFloat64(), rng.NormFloat64()}
		want, wtr, err := Forward(f, x)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tr.Reforward(x)
		if err != nil {
			t.Fatal(err)
		}
		same := func(what string, a, b []float64) {
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
					t.Fatalf("trial %d: %s %d is %v, Forward's %v", trial, what, i, b[i], a[i])
				}
			}
		}
		same("output", want, got)
		same("gradient", wtr.Backward(v), tr.Backward(v))
	}
}
