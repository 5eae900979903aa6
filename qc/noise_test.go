package qc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// int8Instance is a float network against its int8 copy on the same
// input: the layout is built on their lowerings (bounds.LowerPair) with
// the quantisers' rounding as noise coordinates.
type int8Instance struct {
	instance
	low   [2]bounds.Lowered
	facts []Fact
}

// newInt8Instance returns a 3-input ReLU network against its int8 copy,
// calibrated on 40 points of the input box shrunk by the factor shrink (so
// that some quantisers clamp when it is below 1).
func newInt8Instance(t *testing.T, seed uint64, shrink float64) int8Instance {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	nx := 3
	f1 := randNet(rng, []int{nx, 6, 5, 3}, nn.Activation{Kind: nn.ReLU}, 1)
	lo, hi := make([]float64, nx), make([]float64, nx)
	for i := range nx {
		lo[i], hi[i] = -1+0.3*rng.Float64(), 0.5+0.5*rng.Float64()
	}
	var calib [][]float64
	for range 40 {
		x := make([]float64, nx)
		for i := range x {
			x[i] = shrink * (lo[i] + rng.Float64()*(hi[i]-lo[i]))
		}
		calib = append(calib, x)
	}
	r, err := quantise.SampleRanges(f1, calib)
	if err != nil {
		t.Fatal(err)
	}
	f2, err := quantise.Int8(f1, r, quantise.DefaultInt8Options())
	if err != nil {
		t.Fatal(err)
	}
	in := spec.Inputs{Box: spec.Box{Lo: lo, Hi: hi}, Pairing: spec.SameInput}
	pb, err := bounds.Pair(f1, f2, in, bounds.Options{Method: bounds.MethodSymbolic})
	if err != nil {
		t.Fatal(err)
	}
	l1, l2, err := bounds.LowerPair(f1, f2, 0)
	if err != nil {
		t.Fatal(err)
	}
	v, err := LowerInt8([2]bounds.Lowered{l1, l2}, [2][][]bounds.Interval{pb.Net1.Pre, pb.Net2.Pre})
	if err != nil {
		t.Fatal(err)
	}
	if shrink < 1 && v.Saturating == 0 && len(v.Clamped) == 0 {
		t.Fatal("calibrated on a narrower box, but no saturation")
	}
	cfg := Config{Nets: v.Nets, X2: make([]Input, nx), DiffCoords: true, Noise: v.Noise, Sat: v.Sat}
	for i := range cfg.X2 {
		cfg.X2[i].Mode = InputSame
	}
	l, err := NewLayout(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := Order(cfg); n != l.Dim {
		t.Errorf("Order %d, layout's order %d", n, l.Dim)
	}
	ts := InputBox(l, in.Box, in.Box)
	for n, nb := range [2]*bounds.Net{pb.Net1, pb.Net2} {
		ts = append(ts, Noise(l, n)...)
		ts = append(ts, Saturation(l, n, nb.Pre)...)
		ts = append(ts, Sector(l, n)...)
		ts = append(ts, ReLU(l, n)...)
		ts = append(ts, Bounded(l, n)...)
		ts = append(ts, PreBox(l, n, nb.Pre)...)
		ts = append(ts, PostBox(l, n, nb.Post)...)
		ts = append(ts, ReLUTriangle(l, n, nb.Pre, true)...)
	}
	ts = append(ts, DiffSlope(l, [2][][]bounds.Interval{pb.Net1.Pre, pb.Net2.Pre})...)
	ts = append(ts, DiffBox(l, pb.DiffPre, pb.DiffPost)...)
	ts = append(ts, DiffChords(l, pb.DiffPre, true)...)
	facts := Facts(l, in.Box, [2][][]bounds.Interval{pb.Net1.Pre, pb.Net2.Pre})
	for a := range facts {
		for b := a + 1; b < len(facts); b++ {
			ts = append(ts, Product(facts[a], facts[b]))
		}
	}
	l1.Net, l2.Net = v.Nets[0], v.Nets[1]
	return int8Instance{instance: instance{nets: [2]*nn.Network{f1, f2}, in: in, l: l, terms: ts}, low: [2]bounds.Lowered{l1, l2},
		facts: facts}
}

// eta returns eta at x on both networks, the noise being the rounding the
// quantisers actually do.
func (ins int8Instance) eta(x []float64) []float64 {
	noise := func(n, k, i int, v float64) float64 { return ins.low[n].Rounding(k, i, v) }
	return ins.l.EtaNoisy([2]*nn.Network{ins.low[0].Net, ins.low[1].Net}, x, x, noise)
}

// TestInt8TermsHoldOnSamples evaluates every term of a float network
// against its int8 copy (input, activation and output quantisers; with
// and without saturation in the box; the products of every two facts
// among them) and every fact at sampled inputs and box corners, after
// checking that the output forms give the int8 network's outputs, and
// counts the samples where a clamp acts.
func TestInt8TermsHoldOnSamples(t *testing.T) {
	type instanceCase struct {
		seed   uint64
		shrink float64
	}
	var cases []instanceCase
	for seed := range uint64(6) {
		shrink := 1.0
		if seed%2 == 1 {
			shrink = 0.6
		}
		cases = append(cases, instanceCase{seed, shrink})
	}
	// Calibrated on a box a third as wide: the second hidden layer keeps
	// its clamp as a hard-tanh against the float ReLU.
	cases = append(cases, instanceCase{1, 0.3})
	for _, c := range cases {
		seed, saturate := c.seed, c.shrink < 1
		t.Run(fmt.Sprintf("seed=%d/shrink=%g", seed, c.shrink), func(t *testing.T) {
			ins := newInt8Instance(t, seed, c.shrink)
			checkMixedDiffBoxes(t, ins)
			noise := 0
			for _, term := range ins.terms {
				if term.Kind == KindNoise {
					noise++
				}
			}
			if want := 3 + 6 + 5 + 3; noise != want {
				t.Fatalf("%d noise terms, want %d (input, two hidden layers, output)", noise, want)
			}
			rng := rand.New(rand.NewPCG(seed, 8))
			acting := 0
			for s, xs := range ins.samples(rng, 200) {
				eta := ins.eta(xs[0])
				if ins.clampActs(eta) {
					acting++
				}
				checkOutputs(t, ins.instance, xs, eta)
				for _, term := range ins.terms {
					checkTerm(t, ins.l, term, eta, s < 2)
				}
				for _, f := range ins.facts {
					if v := f.F.Eval(eta); v < -1e-9*(1+math.Abs(v)) {
						t.Fatalf("fact %s: %v < 0", f.Where, v)
					}
				}
			}
			if saturate && acting == 0 {
				t.Error("no sample where a clamp acts")
			}
		})
	}
}

// checkMixedDiffBoxes checks that every layer where the two networks'
// activations differ (the float ReLU or identity against the int8 copy's
// hard-tanh) has the difference boxes of its neurons (DiffBox).
func checkMixedDiffBoxes(t *testing.T, ins int8Instance) {
	t.Helper()
	boxed := map[string]bool{}
	for _, term := range ins.terms {
		if term.Kind == KindDiffPostBox {
			boxed[term.Where] = true
		}
	}
	for k, a := range ins.l.Nets[0].Layers {
		b := ins.l.Nets[1].Layers[k]
		for i := range a.Out {
			if where := fmt.Sprintf("L%d[%d]", k, i); a.Act != b.Act && !Sub(b.Out[i], a.Out[i]).IsZero() && !boxed[where] {
				t.Errorf("%s (%v against %v): no box of the output difference", where, a.Act.Kind, b.Act.Kind)
			}
		}
	}
}

// clampActs reports whether an excess of a clamp is positive at eta.
func (ins int8Instance) clampActs(eta []float64) bool {
	for _, lay := range ins.l.Nets[1].Layers {
		for i := range lay.Out {
			for _, c := range []int{lay.SatAbove[i], lay.SatBelow[i]} {
				if c >= 0 && eta[c] > 0 {
					return true
				}
			}
		}
	}
	return false
}
