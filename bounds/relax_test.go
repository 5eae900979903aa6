package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
)

// randomInterval returns an interval with ends of magnitude up to 10^e for
// a random e in [-3, 1.5] (sometimes a point, sometimes one-signed).
func randomInterval(rng *rand.Rand) (float64, float64) {
	scale := math.Pow(10, -3+4.5*rng.Float64())
	a, b := scale*rng.NormFloat64(), scale*rng.NormFloat64()
	switch rng.IntN(8) {
	case 0:
		b = a
	case 1:
		a, b = math.Abs(a), math.Abs(b)
	}
	return min(a, b), max(a, b)
}

func TestRelaxationsSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 0))
	for trial := range 4000 {
		act := boundstest.RandomActivation(rng)
		l, u := randomInterval(rng)
		lower, upper := relax(act, l, u)
		for s := range 201 {
			z := l + (u-l)*float64(s)/200
			if s%50 == 3 {
				z = l + (u-l)*rng.Float64()
			}
			v := act.Apply(z)
			tol := 1e-13 * (1 + math.Abs(v) + math.Abs(z))
			if lo := lower.A*z + lower.C; lo > v+tol {
				t.Fatalf("trial %d %v on [%v, %v]: lower line %+v at %v is %v > phi = %v", trial, act, l, u, lower, z, lo, v)
			}
			if hi := upper.A*z + upper.C; hi < v-tol {
				t.Fatalf("trial %d %v on [%v, %v]: upper line %+v at %v is %v < phi = %v", trial, act, l, u, upper, z, hi, v)
			}
		}
	}
}

func TestRelaxationsTight(t *testing.T) {
	// The gap between the lines at the middle of the interval is at most
	// that of the constant lines (the image), and is exactly 0 where the
	// activation is linear.
	rng := rand.New(rand.NewPCG(6, 0))
	for range 2000 {
		act := boundstest.RandomActivation(rng)
		l, u := randomInterval(rng)
		lower, upper := relax(act, l, u)
		img := actImage(act, Interval{l, u})
		m := l/2 + u/2
		if gap := (upper.A*m + upper.C) - (lower.A*m + lower.C); gap > img.Width()*(1+1e-12)+1e-14*(1+img.Mag()+math.Abs(m)) {
			t.Fatalf("%v on [%v, %v]: middle gap %v wider than the image %v", act, l, u, gap, img)
		}
	}
	for _, a := range boundstest.Activations {
		if a.Kind == 0 || a.Kind == 1 || a.Kind == 2 { // identity, relu, leaky: linear on [0.5, 2]
			lower, upper := relax(a, 0.5, 2)
			if d := (upper.A*1.25 + upper.C) - (lower.A*1.25 + lower.C); d > 1e-14 {
				t.Errorf("%v on [0.5, 2]: gap %v, want about 0", a, d)
			}
		}
	}
}

func TestGapEndpointsAndStationary(t *testing.T) {
	// min/max of phi - lambda z by dense sampling never beats the rigorous bounds.
	rng := rand.New(rand.NewPCG(7, 0))
	for trial := range 3000 {
		act := boundstest.RandomActivation(rng)
		l, u := randomInterval(rng)
		lambda := 1.5*rng.Float64() - 0.25
		lo, hi := minGap(act, lambda, l, u), maxGap(act, lambda, l, u)
		for s := range 401 {
			z := l + (u-l)*float64(s)/400
			g := act.Apply(z) - lambda*z
			tol := 1e-13 * (1 + math.Abs(g) + math.Abs(z))
			if g < lo-tol || g > hi+tol {
				t.Fatalf("trial %d %v lambda %v on [%v, %v]: g(%v) = %v outside [%v, %v]", trial, act, lambda, l, u, z, g, lo, hi)
			}
		}
	}
}

func TestSymbolicNeverLooser(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 0))
	tighter := 0
	for range 300 {
		f := boundstest.Network(rng, randomSizes(rng), 1)
		box := randomBox(rng, f.InputSize())
		iv, _ := Single(f, box, Options{Method: MethodInterval})
		sy, _ := Single(f, box, Options{Method: MethodSymbolic})
		for k := range iv.Pre {
			for i := range iv.Pre[k] {
				a, b := iv.Pre[k][i], sy.Pre[k][i]
				if b.Lo < a.Lo || b.Hi > a.Hi {
					t.Fatalf("layer %d neuron %d: symbolic %v looser than interval %v", k, i, b, a)
				}
				if b.Width() < 0.99*a.Width() {
					tighter++
				}
			}
		}
	}
	if tighter == 0 {
		t.Error("symbolic never tighter than interval")
	}
}
