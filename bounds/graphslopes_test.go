package bounds

import (
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestGraphOptimisedSound checks the optimised lines of the output's rows
// (graphslopes.go) on small residual and random graph pairs: at random
// points of the box, corners among them, the output difference lies in
// the optimised enclosure, which is inside the one without optimisation;
// and alike for one network's output.
func TestGraphOptimisedSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 12))
	narrowed := 0
	for trial := range 6 {
		var g1 *nn.Graph
		if trial < 3 {
			g1 = residualCNN(rng, 1, 6, 6, []int{4, 6})
		} else {
			g1 = randGraph(rng)
		}
		g2 := perturbed(rng, g1, 0.02)
		box := randBox(rng, g1.InputSize(), []float64{0.02, 0.1, 0.3}[trial%3])
		plain := GraphOptions{Intermediate: IntermediateBacksub, Batch: 7, Workers: 2}
		opt := plain
		opt.Optimise = OptimiseSettings{Iterations: 4, Step: 0.2}
		for _, in := range graphPairings(box) {
			before, err := GraphPair(g1, g2, in, plain)
			if err != nil {
				t.Fatal(err)
			}
			after, err := GraphPair(g1, g2, in, opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := pairSamplesInside(rng, g1, g2, in, after); err != nil {
				t.Fatalf("trial %d, %v: %v", trial, in.Pairing, err)
			}
			for i, d := range after.Diff {
				if b := before.Diff[i]; d.Lo < b.Lo || d.Hi > b.Hi {
					t.Fatalf("trial %d, %v: output %d optimised %v, looser than %v", trial, in.Pairing, i, d, b)
				} else if d.Width() < b.Width() {
					narrowed++
				}
			}
		}
		single, err := GraphSingle(g1, box, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range boxSamples(rng, box, 40) {
			y, err := g1.Eval(x)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range y {
				if !single.Output[i].Contains(v) {
					t.Fatalf("trial %d: output %d = %v outside %v", trial, i, v, single.Output[i])
				}
			}
		}
	}
	if narrowed == 0 {
		t.Error("the optimisation narrowed no output")
	}
	t.Logf("%d outputs narrowed", narrowed)
}

// TestGraphOptimisedWorkers checks that the optimised bounds do not
// depend on the number of workers.
func TestGraphOptimisedWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	g1 := residualCNN(rng, 1, 6, 6, []int{4})
	g2 := perturbed(rng, g1, 0.02)
	in := spec.Inputs{Box: randBox(rng, g1.InputSize(), 0.1)}
	var first []Interval
	for _, workers := range []int{1, 3} {
		opts := GraphOptions{Intermediate: IntermediateBacksub, Batch: 3, Workers: workers, Optimise: OptimiseSettings{Iterations: 3, Step: 0.2}}
		pb, err := GraphPair(g1, g2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = pb.Diff
			continue
		}
		for i, d := range pb.Diff {
			if d != first[i] {
				t.Fatalf("output %d: %v with %d workers, %v with 1", i, d, workers, first[i])
			}
		}
	}
}
