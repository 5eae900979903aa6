package bounds

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// soundnessOptions are the option sets of the soundness campaign: every
// method, splitting, the optimisation of differences, back-substitution
// of unstable neurons only, and network 2 bounded through network 1 and
// the difference.
var soundnessOptions = []Options{
	{Method: MethodInterval},
	{Method: MethodSymbolic},
	{Method: MethodOptimised},
	{Method: MethodOptimised, Optimise: OptimiseSettings{Differences: true}},
	{Method: MethodOptimised, Split: 5, Optimise: OptimiseSettings{Differences: true, Iterations: 8}},
	{Method: MethodSymbolic, Split: 4},
	{Method: MethodSymbolic, Heuristics: Heuristics{UnstableOnly: true}},
	{Method: MethodOptimised, Heuristics: Heuristics{UnstableOnly: true}},
	{Method: MethodOptimised, Heuristics: Heuristics{UnstableOnly: true, SecondByDifference: true}},
	{Method: MethodSymbolic, Heuristics: Heuristics{SecondByDifference: true}},
}

// TestSoundnessCampaign checks the bounds of random pairs (deeper and
// wider than the other tests': up to 5 hidden layers of 12, ReLU mostly)
// against the networks' values on a dense grid (one input: the extremes of
// a piecewise-linear network are then nearly attained) or at the box's
// corners and random points (2-4 inputs), for every field of PairBounds,
// for a random margin and for the norm of the difference (Norm2 and
// Norm2Planar with 2 to 8 directions). 60 pairs
// by default; NNBOUND_LONG=1 runs 3000.
func TestSoundnessCampaign(t *testing.T) {
	pairs := 60
	if os.Getenv("NNBOUND_LONG") != "" {
		pairs = 3000
	}
	rng := rand.New(rand.NewPCG(30, 0))
	for trial := range pairs {
		f1, f2, in := campaignPair(rng)
		opts := soundnessOptions[trial%len(soundnessOptions)]
		pb, err := Pair(f1, f2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		c := make([]float64, f1.OutputSize())
		for j := range c {
			c[j] = rng.NormFloat64()
		}
		m, err := pb.Margin(c)
		if err != nil {
			t.Fatal(err)
		}
		planar, err := pb.Norm2Planar(2 + trial%7)
		if err != nil {
			t.Fatal(err)
		}
		if planar > pb.Norm2() {
			t.Fatalf("trial %d: Norm2Planar %v above Norm2 %v", trial, planar, pb.Norm2())
		}
		for _, xs := range campaignPairs(rng, in) {
			x1, x2 := xs[0], xs[1]
			if err := checkPair(f1, f2, pb, x1, x2); err != nil {
				t.Fatalf("trial %d (%v split %d, %v): at x1=%v: %v", trial, opts.Method, opts.Split, in.Pairing, x1, err)
			}
			y1, _ := f1.Eval(x1)
			y2, _ := f2.Eval(x2)
			v, scale := 0.0, 0.0
			for j := range c {
				v += c[j] * (y2[j] - y1[j])
				scale += math.Abs(c[j] * y1[j])
			}
			n2, ys := 0.0, 0.0
			for j := range y1 {
				n2 += (y2[j] - y1[j]) * (y2[j] - y1[j])
				ys += math.Abs(y1[j])
			}
			// The float64 evaluation errs by a few ulps of the outputs,
			// which a difference far smaller than them does not absorb.
			if n2 = math.Sqrt(n2); !near(Interval{0, pb.Norm2()}, n2, ys) {
				t.Fatalf("trial %d (%v split %d, %v): ||f2 - f1|| = %v at x1=%v above Norm2 %v", trial, opts.Method, opts.Split, in.Pairing, n2, x1, pb.Norm2())
			}
			if !near(Interval{0, planar}, n2, ys) {
				t.Fatalf("trial %d (%v split %d, %v): ||f2 - f1|| = %v at x1=%v above Norm2Planar %v", trial, opts.Method, opts.Split, in.Pairing, n2, x1, planar)
			}
			if !near(m, v, scale) {
				t.Fatalf("trial %d (%v split %d, %v): margin %v at x1=%v outside %v", trial, opts.Method, opts.Split, in.Pairing, v, x1, m)
			}
		}
	}
}

// campaignPair returns a random pair for the soundness campaign: f1 with
// 1-4 inputs and 1-5 hidden layers of 2-12 neurons (ReLU three times in
// four, else a random activation), and f2 its float16 copy, a perturbed
// copy, or f1 with some neurons' outgoing weights zeroed (pruned).
func campaignPair(rng *rand.Rand) (f1, f2 *nn.Network, in spec.Inputs) {
	sizes := []int{1 + rng.IntN(4)}
	for range 1 + rng.IntN(5) {
		sizes = append(sizes, 2+rng.IntN(11))
	}
	sizes = append(sizes, 1+rng.IntN(3))
	act := nn.Activation{Kind: nn.ReLU}
	if rng.IntN(4) == 0 {
		act = boundstest.RandomActivation(rng)
	}
	f1 = boundstest.Network(rng, sizes, 0.3+rng.Float64(), act)
	switch rng.IntN(3) {
	case 0:
		f2 = boundstest.Float16(f1)
	case 1:
		f2 = boundstest.Perturb(rng, f1, 0.01+0.1*rng.Float64())
	default:
		f2 = f1.Clone()
		for k := 1; k < len(f2.Layers); k++ {
			w := f2.Layers[k].W
			r, cols := w.Dims()
			for j := range cols {
				if rng.IntN(4) == 0 {
					for i := range r {
						w.Set(i, j, 0)
					}
				}
			}
		}
	}
	_, _, in = randomPair(rng)
	in.Box = randomBox(rng, sizes[0])
	return f1, f2, in
}

// campaignPairs returns the input pairs where the campaign evaluates: x1
// at campaignPoints, x2 paired with it (drawn from the box for
// Independent).
func campaignPairs(rng *rand.Rand, in spec.Inputs) [][2][]float64 {
	var out [][2][]float64
	for _, x1 := range campaignPoints(rng, in.Box) {
		x2 := in.X2(x1)
		if in.Pairing == spec.Independent {
			x2 = boundstest.Uniform(rng, in.Box.Lo, in.Box.Hi)
		}
		out = append(out, [2][]float64{x1, x2})
	}
	return out
}

// campaignPoints returns the points where the campaign evaluates: a grid
// of 2001 points for one input, else the box's corners and 300 random
// points.
func campaignPoints(rng *rand.Rand, box spec.Box) [][]float64 {
	var pts [][]float64
	if box.Dim() == 1 {
		for g := range 2001 {
			pts = append(pts, []float64{box.Lo[0] + (box.Hi[0]-box.Lo[0])*float64(g)/2000})
		}
		return append(pts, []float64{box.Hi[0]})
	}
	for c := range 1 << box.Dim() {
		x := make([]float64, box.Dim())
		for i := range x {
			x[i] = box.Lo[i]
			if c>>i&1 == 1 {
				x[i] = box.Hi[i]
			}
		}
		pts = append(pts, x)
	}
	for range 300 {
		pts = append(pts, boundstest.Uniform(rng, box.Lo, box.Hi))
	}
	return pts
}
