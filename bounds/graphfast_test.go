package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestGraphFastLoops checks that back-substitution's fast loops give the
// bounds of its plain ones to the bit, on difference graphs (residual
// CNNs against perturbed copies) and combined graphs (against copies with
// quantisers), under every method.
func TestGraphFastLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	for trial := range 8 {
		g1 := residualCNN(rng, 1, 8, 8, []int{3, 4})
		if trial%4 == 3 {
			g1 = randGraph(rng)
		}
		in := spec.Inputs{Box: randBox(rng, g1.InputSize(), 0.05)}
		var g2 *nn.Graph
		if trial%2 == 0 {
			g2 = perturbed(rng, g1, 0.01)
		} else {
			g2 = withQuantisers(rng, g1, in.Box)
		}
		opts := graphMethods[trial%len(graphMethods)]
		fast, err := GraphPair(g1, g2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.reference = true
		plain, err := GraphPair(g1, g2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		if fast.Combined.Rows != plain.Combined.Rows {
			t.Fatalf("trial %d: %d rows, plain loops %d", trial, fast.Combined.Rows, plain.Combined.Rows)
		}
		for v, x := range plain.Combined.Values {
			for i, xi := range x {
				yi := fast.Combined.Values[v][i]
				if math.Float64bits(xi.Lo) != math.Float64bits(yi.Lo) || math.Float64bits(xi.Hi) != math.Float64bits(yi.Hi) {
					t.Fatalf("trial %d: value %d entry %d: fast loops %v, plain %v", trial, v, i, yi, xi)
				}
			}
		}
	}
}
