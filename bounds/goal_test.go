package bounds

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// goalOptions are the optimised option sets the goal tests cover.
var goalOptions = []Options{
	{Method: MethodOptimised},
	{Method: MethodOptimised, Heuristics: Heuristics{UnstableOnly: true, SecondByDifference: true, PlainPairs: true}},
	{Method: MethodOptimised, Optimise: OptimiseSettings{Differences: true, Iterations: 5}},
	{Method: MethodOptimised, Heuristics: Heuristics{UnstableOnly: true}},
}

// unitMargins returns the n unit weight vectors.
func unitMargins(n int) [][]float64 {
	cs := make([][]float64, n)
	for j := range cs {
		cs[j] = make([]float64, n)
		cs[j][j] = 1
	}
	return cs
}

// sameBits reports the first interval of got that differs from want's in
// a bit.
func sameBits(name string, got, want []Interval) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d intervals, want %d", name, len(got), len(want))
	}
	for i := range want {
		if math.Float64bits(got[i].Lo) != math.Float64bits(want[i].Lo) || math.Float64bits(got[i].Hi) != math.Float64bits(want[i].Hi) {
			return fmt.Errorf("%s %d: %v, want %v", name, i, got[i], want[i])
		}
	}
	return nil
}

// samePair reports the first bound of got that differs from want's, and
// the first of their margins cs.
func samePair(got, want *PairBounds, cs [][]float64, optimise bool) error {
	for _, c := range []struct {
		name      string
		got, want [][]Interval
	}{{"Net1.Pre", got.Net1.Pre, want.Net1.Pre}, {"Net2.Pre", got.Net2.Pre, want.Net2.Pre},
		{"Net1.Post", got.Net1.Post, want.Net1.Post}, {"DiffPre", got.DiffPre, want.DiffPre}, {"DiffPost", got.DiffPost, want.DiffPost}} {
		for k := range c.want {
			if err := sameBits(fmt.Sprintf("%s[%d]", c.name, k), c.got[k], c.want[k]); err != nil {
				return err
			}
		}
	}
	if err := sameBits("Output", got.Output, want.Output); err != nil {
		return err
	}
	mg, err := got.Margins(cs)
	if err != nil {
		return err
	}
	mw, err := want.margins(context.Background(), cs, optimise)
	if err != nil {
		return err
	}
	return sameBits("margin", mg, mw)
}

// TestGoal checks, on random pairs, that a goal never met changes no bound
// (though Pair forks its state at every layer), that a goal met at the
// first checkpoint, or hopeless there, returns MethodSymbolic's bounds, and one met only after
// the last layer the optimised layers with margins not optimised.
func TestGoal(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 0))
	for trial := range 60 {
		f1, f2, in := campaignPair(rng)
		opts := goalOptions[trial%len(goalOptions)]
		depth := len(f1.Layers)
		var every []int
		for k := 1; k < depth; k++ {
			every = append(every, k)
		}
		cs := unitMargins(f1.OutputSize())
		want, err := Pair(f1, f2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		never := opts
		never.Goal = &Goal{Margins: cs, Checkpoints: every, Met: func([]Interval) bool { calls++; return false }}
		got, err := Pair(f1, f2, in, never)
		if err != nil {
			t.Fatal(err)
		}
		if err := samePair(got, want, cs, true); err != nil {
			t.Fatalf("trial %d (%+v), goal never met: %v", trial, opts, err)
		}
		if calls != depth {
			t.Fatalf("trial %d: %d checks, want %d", trial, calls, depth)
		}
		sym := opts
		sym.Method = MethodSymbolic
		wantSym, err := Pair(f1, f2, in, sym)
		if err != nil {
			t.Fatal(err)
		}
		first := opts
		first.Goal = &Goal{Margins: cs, Checkpoints: []int{1}, Met: func([]Interval) bool { return true }}
		if depth > 1 {
			if got, err = Pair(f1, f2, in, first); err != nil {
				t.Fatal(err)
			}
			if err := samePair(got, wantSym, cs, false); err != nil {
				t.Fatalf("trial %d (%+v), goal met at layer 1: %v", trial, opts, err)
			}
			hopeless := opts
			hopeless.Goal = &Goal{Margins: cs, Checkpoints: []int{1}, Met: func([]Interval) bool { return false },
				Hopeless: func([]Interval) bool { return true }}
			if got, err = Pair(f1, f2, in, hopeless); err != nil {
				t.Fatal(err)
			}
			if err := samePair(got, wantSym, cs, false); err != nil {
				t.Fatalf("trial %d (%+v), hopeless at layer 1: %v", trial, opts, err)
			}
		}
		calls = 0
		last := opts
		last.Goal = &Goal{Margins: cs, Checkpoints: every, Met: func([]Interval) bool { calls++; return calls == depth }}
		if got, err = Pair(f1, f2, in, last); err != nil {
			t.Fatal(err)
		}
		if err := samePair(got, want, cs, false); err != nil {
			t.Fatalf("trial %d (%+v), goal met after the last layer: %v", trial, opts, err)
		}
	}
}

// TestGoalErrors checks that Pair refuses a goal without Met or margins,
// with margins of the wrong length, and with checkpoints outside the
// hidden layers.
func TestGoalErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 0))
	f1, f2, in := campaignPair(rng)
	n, depth := f1.OutputSize(), len(f1.Layers)
	met := func([]Interval) bool { return true }
	for i, g := range []*Goal{
		{Margins: unitMargins(n)},
		{Met: met},
		{Margins: [][]float64{make([]float64, n+1)}, Met: met},
		{Margins: unitMargins(n), Met: met, Checkpoints: []int{0}},
		{Margins: unitMargins(n), Met: met, Checkpoints: []int{depth}},
	} {
		opts := DefaultOptions()
		opts.Goal = g
		if _, err := Pair(f1, f2, in, opts); err == nil {
			t.Errorf("goal %d was accepted", i)
		} else if !errors.Is(err, ErrOptions) && i != 2 {
			t.Errorf("goal %d: %v does not wrap ErrOptions", i, err)
		}
	}
}
