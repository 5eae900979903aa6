package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

// TestSmoothDiffSoundAndExact checks the monotone chord of tanh and
// sigmoid on random boxes of (s, d), narrow and wide, around and away
// from 0: every sampled phi(s + d) - phi(s) lies inside, and the ends are
// attained at the points the derivation names, to rounding.
func TestSmoothDiffSoundAndExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 0))
	for trial := range 400 {
		a := nn.Activation{Kind: nn.Tanh}
		if trial%2 == 1 {
			a = nn.Activation{Kind: nn.Sigmoid}
		}
		x := widthInterval(rng, 6)
		dx := widthInterval(rng, []float64{1e-4, 0.1, 3}[trial%3])
		got := smoothDiff(a, x, dx)
		lo, hi := math.Inf(1), math.Inf(-1)
		for range 400 {
			s := x.Lo + (x.Hi-x.Lo)*rng.Float64()
			d := dx.Lo + (dx.Hi-dx.Lo)*rng.Float64()
			v := a.Apply(s+d) - a.Apply(s)
			if !got.Contains(v) {
				t.Fatalf("trial %d: %v(s + d) - %v(s) = %v at s = %v, d = %v: outside %v (x %v, d %v)", trial, a, a, v, s, d, got, x, dx)
			}
		}
		// The extremes: d at its end, s at -d/2 clamped or an end of x.
		for _, d := range []float64{dx.Lo, dx.Hi} {
			for _, s := range []float64{x.Lo, x.Hi, min(max(-d/2, x.Lo), x.Hi)} {
				v := a.Apply(s+d) - a.Apply(s)
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		if !got.Contains(lo) || !got.Contains(hi) || got.Hi-hi > 1e-12 || lo-got.Lo > 1e-12 {
			t.Fatalf("trial %d: %v on x %v, d %v: got %v, extremes [%v, %v]", trial, a, x, dx, got, lo, hi)
		}
	}
}

// TestDiffImageNeverLooserThanSlopes checks that the chord only tightens
// the mean value theorem's enclosure and stays sound on boxes of s + d.
func TestDiffImageNeverLooserThanSlopes(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 0))
	a := nn.Activation{Kind: nn.Tanh}
	for trial := range 200 {
		x, dx := widthInterval(rng, 4), widthInterval(rng, 0.5)
		x2 := x.Add(dx)
		got := diffImage(a, x, x2, dx)
		mvt := SlopeRange(a, x.Hull(x2)).Scale(dx)
		if got.Lo < mvt.Lo || got.Hi > mvt.Hi {
			t.Fatalf("trial %d: %v looser than %v", trial, got, mvt)
		}
		for range 200 {
			s := x.Lo + (x.Hi-x.Lo)*rng.Float64()
			d := dx.Lo + (dx.Hi-dx.Lo)*rng.Float64()
			if v := a.Apply(s+d) - a.Apply(s); !got.Contains(v) {
				t.Fatalf("trial %d: %v at s = %v, d = %v outside %v", trial, v, s, d, got)
			}
		}
	}
}

// widthInterval returns an interval of width up to w around a point of
// [-w, w].
func widthInterval(rng *rand.Rand, w float64) Interval {
	c, h := w*(2*rng.Float64()-1), w*rng.Float64()/2
	return Interval{c - h, c + h}
}
