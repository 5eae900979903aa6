package bounds

import (
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

// TestSameActClamped checks diffPlanes and diffImage where a float neuron
// (identity, or ReLU) stays inside the range its quantised copy clamps to
// (hard-tanh) while the copy's pre-activation leaves it: at sampled (a,
// d), a in pre1, a + d in pre2, d in dd, phi2(a + d) - phi1(a) must lie
// between the planes and in the image.
func TestSameActClamped(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 0))
	for trial := range 2000 {
		lo, hi := -1-rng.Float64(), 1+rng.Float64()
		act1 := nn.Activation{Kind: nn.Identity}
		if trial%2 == 1 {
			act1, lo = nn.Activation{Kind: nn.ReLU}, 0
		}
		act2 := nn.Activation{Kind: nn.HardTanh, Lo: lo, Hi: hi}
		if trial%2 == 0 {
			act1, act2 = act2, act1 // either network may be the quantised one
		}
		h := nn.Activation{Kind: nn.HardTanh, Lo: lo, Hi: hi}
		pIn := func() Interval { // inside [lo, hi] (below hi for ReLU)
			x, y := lo+(hi-lo)*rng.Float64(), lo+(hi-lo)*rng.Float64()
			if h.Lo == 0 && trial%4 == 1 {
				x -= 2 * rng.Float64()
			}
			return Interval{min(x, y), max(x, y)}
		}
		pOut := func(p Interval) Interval { // around p, beyond an end
			return Interval{p.Lo - 0.5*rng.Float64(), p.Hi + 0.5*rng.Float64()}
		}
		pre1 := pIn()
		pre2 := pOut(pre1)
		if act1.Kind == nn.HardTanh {
			pre2 = pIn()
			pre1 = pOut(pre2)
		}
		dd := pre2.Sub(pre1)
		post := actImage(act2, pre2).Sub(actImage(act1, pre1))
		l1, u1 := relax(act1, pre1.Lo, pre1.Hi)
		l2, u2 := relax(act2, pre2.Lo, pre2.Hi)
		lower, upper := diffPlanes(act1, act2, pre1, pre2, dd, post, l1, u1, l2, u2)
		a, ok := sameAct(act1, act2, pre1, pre2)
		if !ok {
			t.Fatalf("trial %d: %v on %v and %v on %v: no common activation", trial, act1, pre1, act2, pre2)
		}
		img := diffImage(a, pre1, pre2, dd)
		for range 200 {
			x1 := pre1.Lo + pre1.Width()*rng.Float64()
			x2 := pre2.Lo + pre2.Width()*rng.Float64()
			d := x2 - x1
			v := act2.Apply(x2) - act1.Apply(x1)
			if lower.at(x1, d) > v+1e-12 || upper.at(x1, d) < v-1e-12 || !near(img, v, 1) {
				t.Fatalf("trial %d: %v(%v) - %v(%v) = %v outside the planes [%v, %v] or the image %v",
					trial, act2, x2, act1, x1, v, lower.at(x1, d), upper.at(x1, d), img)
			}
		}
	}
}
