package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// diffTestFns are the smooth functions of the difference tests.
var diffTestFns = []nn.Unary{{F: nn.Exp}, {F: nn.Sqrt}, {F: nn.Reciprocal}, {F: nn.Square}, {F: nn.Cube},
	{F: nn.Erf}, {F: nn.GELU, C: 1 / math.Sqrt2}, {F: nn.GELU, C: -0.4}}

// randDiffBox returns a random box z x d in u's domain: z of any width
// from 1e-4 to 10, d either narrow beside its size (a rounded copy's
// difference) or as wide as z.
func randDiffBox(r *rand.Rand, u nn.Unary, trial int) (z, d Interval) {
	c, w := 3*r.NormFloat64(), math.Pow(10, -4+5*r.Float64())
	z = Interval{c - w*r.Float64(), c + w*r.Float64()}
	dc := 0.3 * r.NormFloat64()
	dw := math.Abs(dc) * math.Pow(10, -3+3*r.Float64())
	if trial%3 == 0 {
		dw = w * r.Float64()
	}
	d = Interval{dc - dw*r.Float64(), dc + dw*r.Float64()}
	switch u.F {
	case nn.Sqrt, nn.Reciprocal: // positive z and z + d, sometimes near 0
		lo := math.Abs(z.Lo) + d.Mag() + math.Pow(10, -3+3*r.Float64())
		z = Interval{lo, lo + z.Width()}
		if u.F == nn.Reciprocal && trial%2 == 0 {
			z, d = Interval{-z.Hi, -z.Lo}, Interval{-d.Hi, -d.Lo}
		}
	case nn.Exp:
		z = Interval{min(z.Lo, 30), min(z.Hi, 30)}
	}
	return z, d
}

// TestTaylorDiffPlanesSound samples the planes of f(z + d) - f(z) chosen
// by unaryDiffPlanes, and the second-order planes alone, at the corners
// and 200 random points of random boxes: lower <= g <= upper, allowing for
// the rounding of g's evaluation.
func TestTaylorDiffPlanesSound(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 7))
	for _, u := range diffTestFns {
		taylor := 0
		for trial := range 600 {
			z, d := randDiffBox(r, u, trial)
			tl, tu, ok := taylorDiffPlanes(u, z, d)
			lo, up := unaryDiffPlanes(u, z, d)
			if ok {
				taylor++
			}
			for k := range 204 {
				zs, ds := z.Lo+z.Width()*r.Float64(), d.Lo+d.Width()*r.Float64()
				if k < 4 {
					zs, ds = []float64{z.Lo, z.Hi}[k%2], []float64{d.Lo, d.Hi}[k/2]
				}
				a, b := u.Apply(zs+ds), u.Apply(zs)
				g, tol := a-b, 1e-13*(math.Abs(a)+math.Abs(b))+1e-300
				for _, p := range [][2]plane{{lo, up}, {tl, tu}} {
					if p[0] == p[1] && p[0] == (plane{}) {
						continue // no second-order planes on this box
					}
					if g < p[0].at(zs, ds)-tol || g > p[1].at(zs, ds)+tol {
						t.Fatalf("%s on z %v, d %v at (%v, %v): %v not in planes [%v, %v]",
							u.Describe(), z, d, zs, ds, g, p[0].at(zs, ds), p[1].at(zs, ds))
					}
				}
			}
		}
		if taylor < 300 {
			t.Errorf("%s: second-order planes on %d of 600 boxes", u.Describe(), taylor)
		}
	}
}

// TestTaylorDiffPlanesTighter checks the point of the second-order
// planes: for exp on z in [0, 0.3] with d in [0.05, 0.051], their gap at
// the centre is below a tenth of the mean value planes'.
func TestTaylorDiffPlanesTighter(t *testing.T) {
	u, z, d := nn.Unary{F: nn.Exp}, Interval{0, 0.3}, Interval{0.05, 0.051}
	ml, mu := meanValuePlanes(u, z, d)
	tl, tu, ok := taylorDiffPlanes(u, z, d)
	if !ok {
		t.Fatal("no second-order planes")
	}
	mean, second := mu.at(0.15, 0.0505)-ml.at(0.15, 0.0505), tu.at(0.15, 0.0505)-tl.at(0.15, 0.0505)
	if !(second < mean/10) {
		t.Errorf("gap at the centre: second-order %v, mean value %v", second, mean)
	}
}

// TestCurvMax checks the bounds of the second and third derivatives against central
// differences of f' at random points of random intervals.
func TestCurvMax(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 8))
	for _, u := range diffTestFns {
		for trial := range 300 {
			z, d := randDiffBox(r, u, trial)
			x := Interval{min(z.Lo, z.Lo+d.Lo), max(z.Hi, z.Hi+d.Hi)}
			d2, d3 := curvMax(u, x)
			for range 50 {
				s := x.Lo + x.Width()*r.Float64()
				step := func(rel float64) float64 {
					h := rel * max(1e-2, math.Abs(s))
					if u.F == nn.Sqrt || u.F == nn.Reciprocal {
						h = min(h, math.Abs(s)/10)
					}
					return h
				}
				f1 := func(t float64) float64 { return u.Deriv(t) }
				h, h3 := step(1e-5), step(1e-3)
				f2 := (f1(s+h) - f1(s-h)) / (2 * h)
				f3 := (f1(s+h3) - 2*f1(s) + f1(s-h3)) / (h3 * h3)
				if math.Abs(f2) > d2*(1+1e-5)+1e-9 || math.Abs(f3) > d3*(1+1e-3)+1e-4*(1+math.Abs(f2)) {
					t.Fatalf("%s on %v at %v: f'' ~ %v, f''' ~ %v, bounds %v, %v", u.Describe(), x, s, f2, f3, d2, d3)
				}
			}
		}
	}
}

// TestReciprocalDiffSound bounds z -> 1/(W z + b) against a copy with
// other weights through the difference graph (reciprocalDiff's relative
// form), on boxes where W z + b keeps one sign and varies by up to half
// its size, and samples pairs: every value and the output difference lie
// in their enclosures.
func TestReciprocalDiffSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 9))
	for trial := range 60 {
		n, m := 1+rng.IntN(3), 1+rng.IntN(4)
		w, b := make([]float64, m*n), make([]float64, m)
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		for j := range b {
			b[j] = (3 + 3*rng.Float64()) * float64(n) * []float64{1, -1}[rng.IntN(2)]
		}
		g1 := &nn.Graph{InputShape: []int{n}, Nodes: []nn.Node{
			{Op: &nn.Affine{M: nn.DenseMap{W: mat.NewDense(m, n, w)}, B: b}, Inputs: []int{0}, Shape: []int{m}},
			{Op: nn.Unary{F: nn.Reciprocal}, Inputs: []int{1}, Shape: []int{m}},
		}}
		g2 := perturbed(rng, g1, []float64{1e-4, 1e-2, 0.1}[trial%3])
		box := randBox(rng, n, []float64{0.01, 0.3, 1}[trial%3])
		for _, in := range graphPairings(box)[:3] {
			pb, err := GraphPair(g1, g2, in, DefaultGraphOptions())
			if err != nil {
				t.Fatal(err)
			}
			if err := pairSamplesInside(rng, g1, g2, in, pb); err != nil {
				t.Fatalf("trial %d, %v: %v", trial, in.Pairing, err)
			}
		}
	}
}
