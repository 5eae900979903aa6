package bounds

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestPairOutputs checks Options.Outputs: every bound stays sound (the
// outputs left out keep looser ones), and the margin of the output kept is
// the one without Outputs up to rounding.
func TestPairOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 3))
	looser := 0 // trials where an output left out has a wider enclosure
	for trial := range 150 {
		f1, f2, in := randomPair(rng)
		m := testOptions[rng.IntN(len(testOptions))]
		m.UnstableOnly = rng.IntN(2) == 0
		j := rng.IntN(f1.OutputSize())
		all, err := Pair(f1, f2, in, m)
		if err != nil {
			t.Fatal(err)
		}
		m.Outputs = []int{j}
		pb, err := Pair(f1, f2, in, m)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			x1, x2 := samplePair(rng, in)
			if err := checkPair(f1, f2, pb, x1, x2); err != nil {
				t.Fatalf("trial %d (%v, %v, output %d): %v", trial, m.Method, in.Pairing, j, err)
			}
		}
		for i := range pb.Output {
			if i != j && pb.Output[i].Width() > all.Output[i].Width() {
				looser++
				break
			}
		}
		c := make([]float64, f1.OutputSize())
		c[j] = 1
		want, err := all.Margin(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pb.Margin(c)
		if err != nil {
			t.Fatal(err)
		}
		if tol := 1e-9 * (want.Mag() + 1e-300); math.Abs(got.Hi-want.Hi) > tol || math.Abs(got.Lo-want.Lo) > tol {
			t.Errorf("trial %d (%v, %v): margin of output %d %v with Outputs, %v without", trial, m.Method, in.Pairing, j, got, want)
		}
	}
	if looser == 0 {
		t.Error("Outputs never left an output's enclosure wider")
	}
	f1, f2, in := randomPair(rand.New(rand.NewPCG(28, 4)))
	for _, outs := range [][]int{{-1}, {f1.OutputSize()}} {
		if _, err := Pair(f1, f2, in, Options{Method: MethodSymbolic, Outputs: outs}); !errors.Is(err, ErrOptions) {
			t.Errorf("Outputs %v: got %v, want ErrOptions", outs, err)
		}
	}
}

// TestPairSplitScheduling checks that the bounds of a split box, whose
// pieces are bounded in parallel, do not depend on the number of
// processors.
func TestPairSplitScheduling(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 5))
	opts := Options{Method: MethodOptimised, Split: 6, Optimise: OptimiseSettings{Iterations: 5}}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for trial := range 20 {
		f1, f2, in := randomPair(rng)
		c := make([]float64, f1.OutputSize())
		for j := range c {
			c[j] = rng.NormFloat64()
		}
		var outs [2][]Interval
		for p, procs := range []int{1, 3} {
			runtime.GOMAXPROCS(procs)
			pb, err := Pair(f1, f2, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			m, err := pb.Margin(c)
			if err != nil {
				t.Fatal(err)
			}
			outs[p] = append(slices.Clone(pb.Output), m)
			for _, l := range pb.DiffPre {
				outs[p] = append(outs[p], l...)
			}
		}
		if !slices.Equal(outs[0], outs[1]) {
			t.Fatalf("trial %d: the bounds on 1 and 3 processors differ", trial)
		}
	}
}
