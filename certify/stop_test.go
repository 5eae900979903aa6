package certify

import (
	"fmt"
	"math"
	"testing"
)

// TestGainRule checks when the refinement ends for lack of gain: on a
// wide box at the first doubling that shrinks the gap too little, on a
// box of few coordinates only after about one split per coordinate and
// two such doublings in a row.
func TestGainRule(t *testing.T) {
	r := Refine{MinGain: 0.05}
	type step struct {
		solves int
		gap    float64
		stop   bool
	}
	cases := []struct {
		name  string
		free  int
		steps []step
	}{
		{"wide box, no gain", 561, []step{{3, 0.99, true}}},
		{"wide box, gain", 561, []step{{3, 0.9, false}, {5, 0.5, false}, {7, 0.88, true}}},
		{"narrow box waits", 4, []step{{3, 1, false}, {7, 1, false}, {9, 1, false}, {19, 1, true}}},
		{"narrow box, a gain resets", 4, []step{{9, 1, false}, {19, 0.9, false}, {39, 0.9, false}, {79, 0.8, false}}},
		{"no bound yet", 561, []step{{3, math.Inf(1), false}}},
	}
	for _, tc := range cases {
		g := newGainRule(1, 1, tc.free)
		for i, s := range tc.steps {
			if got := g.stop(s.solves, s.gap, &r); got != s.stop {
				t.Errorf("%s: step %d (%d solves, gap %v): stop %v, want %v", tc.name, i, s.solves, s.gap, got, s.stop)
			}
		}
	}
}

// TestStopString checks that every reason has a name.
func TestStopString(t *testing.T) {
	for s := StopNone; s <= StopCostly; s++ {
		if n := s.String(); n == "" || n == fmt.Sprintf("Stop(%d)", int(s)) {
			t.Errorf("Stop(%d) has no name: %q", int(s), n)
		}
	}
}

// TestSolveLarge checks that Refine.SolveLarge (an explicit --method
// sdp) lifts the size rules of a time budget, and only it.
func TestSolveLarge(t *testing.T) {
	o := task{Options: DefaultOptions()}
	if sdpTooLarge(MaxBudgetOrder+1, &o) == "" || sdpTooMany(MaxBudgetVariables+1, &o) == "" {
		t.Fatal("an SDP over the size limits is attempted under the default budget")
	}
	o.Refine.SolveLarge = true
	if why := sdpTooLarge(10*MaxBudgetOrder, &o) + sdpTooMany(10*MaxBudgetVariables, &o); why != "" {
		t.Errorf("SolveLarge: skipped: %s", why)
	}
}
