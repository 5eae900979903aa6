package bounds

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMarginsSameAsMargin checks that Margins gives, to the bit, the
// interval Margin gives for each weight vector, on random pairs with every
// test method (split boxes included).
func TestMarginsSameAsMargin(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 0))
	for trial := range 120 {
		f1, f2, in := randomPair(rng)
		opts := testOptions[rng.IntN(len(testOptions))]
		pb, err := Pair(f1, f2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		cs := make([][]float64, 1+rng.IntN(6))
		for q := range cs {
			cs[q] = make([]float64, f1.OutputSize())
			for j := range cs[q] {
				cs[q][j] = rng.NormFloat64()
			}
		}
		got, err := pb.Margins(cs)
		if err != nil {
			t.Fatal(err)
		}
		for q, c := range cs {
			want, err := pb.Margin(c)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(got[q].Lo) != math.Float64bits(want.Lo) || math.Float64bits(got[q].Hi) != math.Float64bits(want.Hi) {
				t.Fatalf("trial %d (%v): margin %d of %d is %v, alone %v", trial, opts.Method, q, len(cs), got[q], want)
			}
		}
	}
	if _, err := (&PairBounds{Output: make([]Interval, 2)}).Margins([][]float64{{1, math.NaN()}}); err == nil {
		t.Error("a NaN weight was accepted")
	}
}
