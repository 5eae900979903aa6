package soundness_test

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBigEvalMatchesFloat checks the high-precision evaluation against
// nn.Network.Eval within the latter's noise, for every activation.
func TestBigEvalMatchesFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := range 60 {
		act := randActivation(rng)
		net := randNetwork(rng, 2, 2, []int{3, 4}, act, k%3 == 0, k%5 == 0, math.Pow(10, -2+4*rng.Float64()), false)
		x := []float64{rng.NormFloat64() * 3, rng.NormFloat64()}
		got := bigEval(net, x)
		want, errB, _ := evalTracked(net, x)
		for j := range want {
			g, _ := got[j].Float64()
			if math.Abs(g-want[j]) > errB[j] {
				t.Errorf("case %d (%v): output %d: high precision %v, float64 %v (noise bound %v)", k, act, j, g, want[j], errB[j])
			}
		}
	}
}
