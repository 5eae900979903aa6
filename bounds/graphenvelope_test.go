package bounds

import (
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

// TestEnvelopePlanesSound samples the region of envelopePlanes (points
// inside, on its edges and at its corners, those on the lines z + d =
// y.Lo, y.Hi included) and checks that the difference of the two
// activations lies between the planes, and that the planes are at least
// as good at the centre as diffPlanes'.
func TestEnvelopePlanesSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 27))
	acts := []nn.Activation{{Kind: nn.ReLU}, {Kind: nn.LeakyReLU, Alpha: 0.1}}
	span := func(c, r float64) Interval {
		a, b := c-r*rng.Float64(), c+r*rng.Float64()
		return Interval{a, b}
	}
	tested := 0
	for trial := range 3000 {
		act1, act2 := acts[rng.IntN(2)], acts[rng.IntN(2)]
		scale := []float64{1e-3, 1, 50}[trial%3]
		z := span(scale*(2*rng.Float64()-1), scale)
		d := span(0.3*scale*(2*rng.Float64()-1), 0.3*scale)
		y := z.Add(d)
		if rng.IntN(2) == 0 { // a tighter enclosure of z + d
			w := y.Hi - y.Lo
			y = Interval{y.Lo + w*0.4*rng.Float64(), y.Hi - w*0.4*rng.Float64()}
		}
		ca, cd := z.Lo/2+z.Hi/2, d.Lo/2+d.Hi/2
		lo, up, ok := envelopePlanes(act1, act2, z, d, y, ca, cd)
		if !ok {
			continue
		}
		tested++
		f := func(a, b float64) float64 { return act2.Apply(a+b) - act1.Apply(a) }
		check := func(a, b float64) {
			if a < z.Lo || a > z.Hi || b < d.Lo || b > d.Hi || a+b < y.Lo || a+b > y.Hi {
				return
			}
			v := f(a, b)
			if l, u := lo.at(a, b), up.at(a, b); l > v || u < v {
				t.Fatalf("trial %d: z %v d %v y %v: f(%g, %g) = %g outside [%g, %g]", trial, z, d, y, a, b, v, l, u)
			}
		}
		for _, a := range []float64{z.Lo, z.Hi, 0} {
			for _, b := range []float64{d.Lo, d.Hi, 0} {
				check(a, b)
			}
			for _, s := range []float64{y.Lo, y.Hi, 0} {
				check(a, s-a)
			}
		}
		for range 200 {
			a, b := z.Lo+(z.Hi-z.Lo)*rng.Float64(), d.Lo+(d.Hi-d.Lo)*rng.Float64()
			check(a, b)
			s := y.Lo + (y.Hi-y.Lo)*float64(rng.IntN(2))
			check(a, s-a)
			check(s-b, b)
		}
		post := pairActImage(pairAct{act1, act2}, z, d, y)
		l1, u1 := relax(act1, z.Lo, z.Hi)
		l2, u2 := relax(act2, y.Lo, y.Hi)
		dl, du := diffPlanes(act1, act2, z, y, d, post, l1, u1, l2, u2)
		tol := 1e-9 * (scale + 1)
		if lo.at(ca, cd) < dl.at(ca, cd)-tol || up.at(ca, cd) > du.at(ca, cd)+tol {
			t.Errorf("trial %d: envelope [%g, %g] at the centre, diffPlanes [%g, %g]", trial, lo.at(ca, cd), up.at(ca, cd), dl.at(ca, cd), du.at(ca, cd))
		}
	}
	if tested < 1000 {
		t.Fatalf("only %d regions tested", tested)
	}
}
