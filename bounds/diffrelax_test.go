package bounds

import (
	"math"
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

// TestMixedDiffImage checks mixedDiffImage on random pairs of the
// identity, ReLU and hard-tanh, the second network's activation often a
// clamp the first's pre-activation passes: every sampled a2(s + d) -
// a1(s), s in x, d in dx (the ends and kinks among them), lies in the
// image, and its ends are within a grid step of the largest and least
// value on a grid of s at d's ends (the image is exact up to rounding).
func TestMixedDiffImage(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 0))
	act := func() nn.Activation {
		switch rng.IntN(3) {
		case 0:
			return nn.Activation{Kind: nn.Identity}
		case 1:
			return nn.Activation{Kind: nn.ReLU}
		}
		lo := -5 * rng.Float64()
		if rng.IntN(2) == 0 {
			lo = 0
		}
		return nn.Activation{Kind: nn.HardTanh, Lo: lo, Hi: lo + 10*rng.Float64()}
	}
	for trial := range 3000 {
		a1, a2 := act(), act()
		scale := math.Pow(10, float64(rng.IntN(4)-1))
		c, w := scale*rng.NormFloat64()*4, scale*8*rng.Float64()
		x := Interval{c - w, c + w*rng.Float64()}
		dc, dw := scale*rng.NormFloat64(), scale*rng.Float64()*[]float64{0, 0.01, 1, 10}[trial%4]
		dx := Interval{dc - dw, dc + dw*rng.Float64()}
		img, ok := mixedDiffImage(a1, a2, x, dx)
		if !ok {
			t.Fatalf("trial %d: %v, %v refused", trial, a1, a2)
		}
		at := func(s, d float64) float64 { return a2.Apply(s+d) - a1.Apply(s) }
		ss := []float64{x.Lo, x.Hi}
		for _, k := range append(a1.Kinks(), a2.Kinks()...) {
			for _, d := range []float64{dx.Lo, dx.Hi, 0} {
				if s := k - d; s >= x.Lo && s <= x.Hi {
					ss = append(ss, s)
				}
			}
		}
		for range 300 {
			ss = append(ss, x.Lo+x.Width()*rng.Float64())
		}
		for _, s := range ss {
			for _, d := range []float64{dx.Lo, dx.Hi, dx.Lo + dx.Width()*rng.Float64()} {
				if v := at(s, d); v < img.Lo || v > img.Hi {
					t.Fatalf("trial %d: %v(%v + %v) - %v(%v) = %v outside %v", trial, a2, s, d, a1, s, v, img)
				}
			}
		}
		const n = 2000
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n + 1 {
			s := x.Lo + x.Width()*float64(i)/n
			lo, hi = min(lo, at(s, dx.Lo)), max(hi, at(s, dx.Hi))
		}
		step := x.Width()/n + 1e-9*(1+scale)
		if img.Lo < lo-step || img.Hi > hi+step {
			t.Fatalf("trial %d: %v vs %v on x %v, dx %v: image %v, grid [%v, %v]", trial, a1, a2, x, dx, img, lo, hi)
		}
	}
}
