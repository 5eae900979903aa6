package bounds

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
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

// TestMarginsContext checks that MarginsContext gives Margins' intervals
// to the bit when its context stays live, and that a context done at any
// of its checks (countdown) yields its error and no intervals, on random
// pairs with every test method (split boxes included).
func TestMarginsContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 0))
	for trial := range 40 {
		f1, f2, in := randomPair(rng)
		opts := testOptions[trial%len(testOptions)]
		pb, err := Pair(f1, f2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		cs := make([][]float64, 1+rng.IntN(4))
		for q := range cs {
			cs[q] = make([]float64, f1.OutputSize())
			cs[q][rng.IntN(len(cs[q]))] = 1
		}
		want, err := pb.Margins(cs)
		if err != nil {
			t.Fatal(err)
		}
		counted := &countdown{Context: context.Background()}
		counted.n.Store(math.MaxInt64)
		got, err := pb.MarginsContext(counted, cs)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("trial %d (%v): %v, %v; Margins %v", trial, opts.Method, got, err, want)
		}
		checks := math.MaxInt64 - counted.n.Load()
		if checks == 0 {
			t.Fatalf("trial %d (%v): the context was never looked at", trial, opts.Method)
		}
		for n := range checks {
			ctx := &countdown{Context: context.Background()}
			ctx.n.Store(n)
			got, err := pb.MarginsContext(ctx, cs)
			if !errors.Is(err, context.Canceled) || got != nil {
				t.Fatalf("trial %d (%v), done at check %d of %d: %v, %v", trial, opts.Method, n, checks, got, err)
			}
		}
	}
}
