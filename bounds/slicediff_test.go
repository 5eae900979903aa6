package bounds

import (
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
)

// TestSliceDiffSound checks the sliced differences of tanh and sigmoid
// layers (hidden and output) of random pairs, perturbed or float16
// copies on every pairing, against the networks at the box's corners and
// random points.
func TestSliceDiffSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 0))
	for trial := range 40 {
		act := nn.Activation{Kind: nn.Tanh}
		if trial%3 == 2 {
			act = nn.Activation{Kind: nn.Sigmoid}
		}
		sizes := []int{1 + rng.IntN(3), 2 + rng.IntN(8), 2 + rng.IntN(8), 1 + rng.IntN(2)}
		f1 := boundstest.Network(rng, sizes, 0.5+rng.Float64(), act)
		f1.Layers[len(f1.Layers)-1].Act = act // a smooth output layer
		f2 := boundstest.Float16(f1)
		if trial%2 == 0 {
			f2 = boundstest.Perturb(rng, f1, 0.01+0.1*rng.Float64())
		}
		_, _, in := randomPair(rng)
		in.Box = randomBox(rng, sizes[0])
		opts := []Options{{Method: MethodSymbolic}, DefaultOptions(), {Method: MethodSymbolic, Split: 3}}[trial%3]
		pb, err := Pair(f1, f2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, xs := range campaignPairs(rng, in) {
			if err := checkPair(f1, f2, pb, xs[0], xs[1]); err != nil {
				t.Fatalf("trial %d (%v, %v): at x1=%v: %v", trial, act, in.Pairing, xs[0], err)
			}
		}
	}
}
