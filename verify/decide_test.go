package verify

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// pair returns a random 2-8-8-2 network and a perturbed copy.
func pair(t *testing.T, seed uint64) (*nn.Network, *nn.Network) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	f, err := randnet.New(rng, []int{2, 8, 8, 2})
	if err != nil {
		t.Fatal(err)
	}
	return f, makeCopy(f, perturbed, rng)
}

var unitBox = spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}}

// TestDeterministic checks that the verdict, bound and node count do not
// depend on the number of workers.
func TestDeterministic(t *testing.T) {
	f, g := pair(t, 1)
	for _, eps := range []float64{0.05, 0.5, 5} {
		var first *Result
		for _, w := range []int{1, 2, 3} {
			o := DefaultOptions()
			o.Workers, o.MaxNodes = w, 200
			res, err := Decide(context.Background(), f, g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{eps}}, &o)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = res
				continue
			}
			if res.Status != first.Status || res.Nodes != first.Nodes || res.Bound != first.Bound {
				t.Errorf("eps %g: %d workers: %v, %d nodes, bound %g; 1 worker: %v, %d nodes, bound %g",
					eps, w, res.Status, res.Nodes, res.Bound, first.Status, first.Nodes, first.Bound)
			}
		}
	}
}

// TestStops checks the node limit and cancellation: Unknown with the
// reason, and a bound that still covers the box.
func TestStops(t *testing.T) {
	f, g := pair(t, 2)
	o := DefaultOptions()
	o.MaxNodes = 3
	tol := spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1e-9}}
	res, err := Decide(context.Background(), f, g, unitBox, tol, &o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status == Holds || (res.Status == Unknown && (res.Reason != NodeLimit || res.Nodes != 3)) {
		t.Errorf("node limit 3: %v (%v), %d nodes", res.Status, res.Reason, res.Nodes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = Decide(ctx, f, g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{100}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Unknown || res.Reason != Cancelled || res.Nodes != 0 {
		t.Errorf("cancelled: %v (%v), %d nodes", res.Status, res.Reason, res.Nodes)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"verdict":"unknown"`, `"reason":"cancelled"`, `"bound":null`, `"nodes":0`, `"seconds":`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
}

// TestErrors checks that ill-posed questions are errors naming the fault.
func TestErrors(t *testing.T) {
	f, g := pair(t, 3)
	small, _ := randnet.New(rand.New(rand.NewPCG(1, 1)), []int{3, 4, 2})
	one, _ := randnet.New(rand.New(rand.NewPCG(1, 1)), []int{2, 4, 1})
	bad := DefaultOptions()
	bad.Batch = 0
	badSplit := DefaultOptions()
	badSplit.Split = SplitRule(7)
	badStep := DefaultOptions()
	badStep.OptimiseStep = math.NaN()
	badAttack := DefaultOptions()
	badAttack.AttackRatio = -1
	badWin := DefaultOptions()
	badWin.ContinueWinRate = 2
	cases := []struct {
		name string
		g    *nn.Network
		in   spec.Inputs
		tol  spec.Tolerance
		opts *Options
		want error
	}{
		{"inputs", small, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}, nil, nn.ErrDimension},
		{"outputs", one, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}, nil, nn.ErrDimension},
		{"nil network", nil, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}, nil, nn.ErrDimension},
		{"box", g, spec.Inputs{Box: spec.Box{Lo: []float64{1, 0}, Hi: []float64{0, 0}}}, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}, nil, spec.ErrBox},
		{"independent", g, spec.Inputs{Box: unitBox.Box, Pairing: spec.Independent}, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}, nil, spec.ErrInputs},
		{"no eps", g, unitBox, spec.Tolerance{}, nil, spec.ErrTolerance},
		{"zero eps", g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{0}}, nil, spec.ErrTolerance},
		{"eps count", g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1, 2, 3}}, nil, spec.ErrTolerance},
		{"norm eps count", g, unitBox, spec.Tolerance{Norm: spec.Norm2, Eps: []float64{1, 2}}, nil, spec.ErrTolerance},
		{"output range", g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}, Outputs: []int{2}}, nil, spec.ErrTolerance},
		{"outputs with norm", g, unitBox, spec.Tolerance{Norm: spec.NormInf, Eps: []float64{1}, Outputs: []int{0}}, nil, spec.ErrTolerance},
		{"options", g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}, &bad, ErrOptions},
		{"split rule", g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}, &badSplit, ErrOptions},
		{"optimiser step", g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}, &badStep, ErrOptions},
		{"attack ratio", g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}, &badAttack, ErrOptions},
		{"continue win rate", g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}, &badWin, ErrOptions},
	}
	for _, c := range cases {
		_, err := Decide(context.Background(), f, c.g, c.in, c.tol, c.opts)
		if !errors.Is(err, c.want) || !strings.HasPrefix(err.Error(), "verify: ") {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}

// TestOutputs checks that a tolerance on one output ignores the others and
// that outputs proved are reported with bounds below their eps.
func TestOutputs(t *testing.T) {
	f, g := pair(t, 4)
	o := DefaultOptions()
	o.MaxNodes = 400
	res, err := Decide(context.Background(), f, g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{10, 1e-12}}, &o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Violated || res.Counterexample == nil {
		t.Fatalf("eps (10, 1e-12): %v, want violated", res.Status)
	}
	res, err = Decide(context.Background(), f, g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{10}, Outputs: []int{0}}, &o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Holds || !(res.OutputBounds[0] < 10) || res.OutputBounds[1] != 0 {
		t.Errorf("eps 10 on output 0: %v, output bounds %v", res.Status, res.OutputBounds)
	}
}

// TestAttackRatio checks that light attacks (Options.AttackRatio) change
// no verdict, and no node count where the pair holds: attacks settle
// nothing, so the tree to a proof is the same. The root's attack is
// weakened (no random starts, no search) so that nodes below it attack.
func TestAttackRatio(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		f, g := pair(t, seed)
		m := largestFound(t, f, g)
		for _, eps := range []float64{0.9 * m, 0.99 * m, 1.5 * m, 2.5 * m} {
			var res [2]*Result
			for i, r := range []float64{0, 0.5} {
				o := DefaultOptions()
				o.MaxNodes, o.AttackRatio, o.RootStarts, o.SearchRatio = 2000, r, 0, 2
				var err error
				if res[i], err = Decide(context.Background(), f, g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{eps}}, &o); err != nil {
					t.Fatal(err)
				}
			}
			full, light := res[0], res[1]
			t.Logf("seed %d eps %.4g: full %v %d nodes, light %v %d nodes", seed, eps, full.Status, full.Nodes, light.Status, light.Nodes)
			if light.Status != full.Status || (full.Status == Holds && light.Nodes != full.Nodes) {
				t.Errorf("seed %d eps %g: light attacks %v after %d nodes, full %v after %d", seed, eps, light.Status, light.Nodes, full.Status, full.Nodes)
			}
		}
	}
}

// TestEarlyStop checks that stopping optimised bounds once they settle
// their node (Options.EarlyStopRatio) changes neither the verdict nor the
// node count (compareVariants; checkpoint before layer 2).
func TestEarlyStop(t *testing.T) {
	set := func(o *Options, r float64) { o.MaxNodes, o.EarlyStopRatio, o.ContinueRatio = 3000, r, 0 }
	compareVariants(t, 40, []float64{0, 2, 8}, set, func(seed uint64, eps float64, res []*Result) {
		t.Logf("seed %d eps %.4g: %v %d nodes, bounds %.4g %.4g %.4g", seed, eps, res[0].Status, res[0].Nodes, res[0].Bound, res[1].Bound, res[2].Bound)
		for i, r := range res[1:] {
			if r.Status != res[0].Status || r.Nodes != res[0].Nodes {
				t.Errorf("seed %d eps %g: early stop %d: %v after %d nodes, without %v after %d", seed, eps, i+1, r.Status, r.Nodes, res[0].Status, res[0].Nodes)
			}
		}
	})
}

// TestContinueRatio checks that stopping optimised bounds before the last
// layers where they are far from settling their node
// (Options.ContinueRatio) changes no verdict (compareVariants).
func TestContinueRatio(t *testing.T) {
	set := func(o *Options, r float64) { o.ContinueRatio = r }
	compareVariants(t, 41, []float64{0, 1.5, 1}, set, sameVerdicts(t, "continue ratio"))
}

// sameVerdicts returns a check for compareVariants that logs the node
// counts and reports every variant (named what) whose verdict differs from
// the first value's.
func sameVerdicts(t *testing.T, what string) func(seed uint64, eps float64, res []*Result) {
	return func(seed uint64, eps float64, res []*Result) {
		t.Logf("seed %d eps %.4g: %v, nodes %d %d %d", seed, eps, res[0].Status, res[0].Nodes, res[1].Nodes, res[2].Nodes)
		for i, r := range res[1:] {
			if r.Status != res[0].Status {
				t.Errorf("seed %d eps %g: %s %d: %v, without %v", seed, eps, what, i+1, r.Status, res[0].Status)
			}
		}
	}
}

// compareVariants decides, on random 2-8-8-8-8-2 networks (seeds 1..4 of
// the PCG stream) and perturbed or close copies, at tolerances around
// their largest difference, once per value r with set(&o, r) applied to
// the default options, and hands the results, in the order of values, to
// check.
func compareVariants(t *testing.T, stream uint64, values []float64, set func(o *Options, r float64), check func(seed uint64, eps float64, res []*Result)) {
	t.Helper()
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, stream))
		f, err := randnet.New(rng, []int{2, 8, 8, 8, 8, 2})
		if err != nil {
			t.Fatal(err)
		}
		g := makeCopy(f, []copyKind{perturbed, close}[seed%2], rng)
		m := largestFound(t, f, g)
		for _, eps := range []float64{0.99 * m, 1.2 * m, 2 * m, 5 * m} {
			res := make([]*Result, len(values))
			for i, r := range values {
				o := DefaultOptions()
				set(&o, r)
				if res[i], err = Decide(context.Background(), f, g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{eps}}, &o); err != nil {
					t.Fatal(err)
				}
			}
			check(seed, eps, res)
		}
	}
}

// largestFound returns the largest difference Decide finds between f and
// g on unitBox, at a tolerance far above it.
func largestFound(t *testing.T, f, g *nn.Network) float64 {
	t.Helper()
	big, err := Decide(context.Background(), f, g, unitBox, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{100}}, nil)
	if err != nil || big.Worst == nil {
		t.Fatalf("no worst point (%v)", err)
	}
	return big.Worst.Measure
}

// TestContinueWinRate checks that stopping every optimised bound at its
// check before the last layers while going on rarely settles a node
// (Options.ContinueWinRate; 1 stops all but every 32nd node's) changes
// no verdict (compareVariants).
func TestContinueWinRate(t *testing.T) {
	set := func(o *Options, r float64) { o.ContinueWinRate = r }
	compareVariants(t, 42, []float64{0, 0.25, 1}, set, sameVerdicts(t, "continue win rate"))
}
