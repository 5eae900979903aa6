package certify

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestInputCases checks the bounds by the cases of an input quantiser on
// small boxes around its jumps (random ReLU networks, int8 and narrower
// copies with saturating ranges, both weight schemes): every output
// difference at the box's cell ends, at the floats next to them and at
// random points lies in the enclosure, and the 2-norm under Norm2; with
// the networks swapped too, and against a constant network (whose
// enclosure is exact); a random margin C on every third box.
func TestInputCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	used := 0
	for trial := range 300 {
		nx := 1 + rng.IntN(2)
		f, g := int8Pair(t, rng, nx, 5)
		box := spec.Box{Lo: make([]float64, nx), Hi: make([]float64, nx)}
		for i := range box.Lo {
			s, _ := g.Input.At(i)
			lo, hi := g.Input.Range(i)
			p := (math.Round((lo+(hi-lo)*rng.Float64())/s) + 0.5) * s // a jump
			if rng.IntN(3) == 0 {
				p = math.Round(p/s) * s
			}
			box.Lo[i], box.Hi[i] = p-s*1.5*rng.Float64(), p+s*1.5*rng.Float64()
			if rng.IntN(4) == 0 {
				box.Lo[i] = p // a box ending at the jump
			}
		}
		o := task{Options: DefaultOptions(), in: spec.Inputs{Box: box, Pairing: spec.SameInput}, q: spec.Quantity{}}
		if trial%3 == 0 {
			o.q.C = boundstest.Uniform(rng, []float64{-1, -1}[:f.OutputSize()], []float64{1, 1}[:f.OutputSize()])
		}
		swap := trial%2 == 1
		if trial%4 >= 2 {
			// A constant f: the enclosure is then the set of g's values
			// in the cases, which must include g's value at every point.
			f = boundstest.Network(rng, []int{nx, 2, f.OutputSize()}, 0, nn.Activation{Kind: nn.ReLU})
		}
		f1, f2 := f, g
		if swap {
			f1, f2 = g, f
		}
		r := region{Box1: cloneBox(box), Box2: cloneBox(box), Pairing: spec.SameInput}
		rb, err := inputCases(context.Background(), f1, f2, &r, &o, bounds.Options{Method: bounds.MethodSymbolic})
		if err != nil {
			t.Fatal(err)
		}
		if rb == nil {
			continue
		}
		used++
		for _, x := range casePoints(rng, g.Input, box) {
			checkCaseBounds(t, f1, f2, rb, o.q.C, x)
		}
	}
	if used < 100 {
		t.Fatalf("the cases applied to %d of 300 boxes, want at least 100", used)
	}
}

// casePoints returns points of box: the corners, the jumps of q inside
// it and the floats next to them (in every coordinate at once and one at
// a time), and random points.
func casePoints(rng *rand.Rand, q *nn.Quantiser, box spec.Box) [][]float64 {
	var per [][]float64 // candidate values per coordinate
	for i := range box.Lo {
		vs := []float64{box.Lo[i], box.Hi[i]}
		for _, c := range cells(inputGrid{q, i}, box.Lo[i], box.Hi[i]) {
			for _, e := range []float64{c.A, c.B} {
				vs = append(vs, e, math.Nextafter(e, math.Inf(-1)), math.Nextafter(e, math.Inf(1)))
			}
		}
		var in []float64
		for _, v := range vs {
			if v >= box.Lo[i] && v <= box.Hi[i] {
				in = append(in, v)
			}
		}
		per = append(per, in)
	}
	var pts [][]float64
	var rec func(x []float64)
	rec = func(x []float64) {
		if len(x) == len(per) {
			pts = append(pts, append([]float64(nil), x...))
			return
		}
		for _, v := range per[len(x)] {
			rec(append(x, v))
		}
	}
	rec(nil)
	for range 200 {
		pts = append(pts, boundstest.Uniform(rng, box.Lo, box.Hi))
	}
	return pts
}

// TestInputCasesMany checks the bounds by the cases of an input quantiser
// on boxes of many cells (more than maxInputCases, where the other network
// is bounded by its affine bounds on the box): every output difference at
// random points, at random cell ends and the floats next to them lies in
// the enclosure, and the 2-norm under Norm2; both orders of the networks.
func TestInputCasesMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2))
	used := 0
	for trial := range 120 {
		nx := 1 + rng.IntN(3)
		f, g := int8Pair(t, rng, nx, 6)
		box := spec.Box{Lo: make([]float64, nx), Hi: make([]float64, nx)}
		for i := range box.Lo {
			s, _ := g.Input.At(i)
			lo, hi := g.Input.Range(i)
			p := lo + (hi-lo)*rng.Float64()
			box.Lo[i], box.Hi[i] = p-s*(1+8*rng.Float64()), p+s*(1+8*rng.Float64())
		}
		o := task{Options: DefaultOptions(), in: spec.Inputs{Box: box, Pairing: spec.SameInput}}
		if trial%3 == 0 {
			o.q.C = boundstest.Uniform(rng, []float64{-1, -1}[:f.OutputSize()], []float64{1, 1}[:f.OutputSize()])
		}
		swap := trial%2 == 1
		f1, f2 := f, g
		if swap {
			f1, f2 = g, f
		}
		r := region{Box1: cloneBox(box), Box2: cloneBox(box), Pairing: spec.SameInput}
		rb, err := inputCases(context.Background(), f1, f2, &r, &o, bounds.Options{Method: bounds.MethodOptimised})
		if err != nil {
			t.Fatal(err)
		}
		n := 1
		for i := range box.Lo {
			n *= len(cells(inputGrid{g.Input, i}, box.Lo[i], box.Hi[i]))
		}
		if rb == nil || n <= maxInputCases {
			continue
		}
		used++
		for range 400 {
			x := boundstest.Uniform(rng, box.Lo, box.Hi)
			if rng.IntN(2) == 0 { // a cell end, or a float next to it
				for i := range x {
					cs := cells(inputGrid{g.Input, i}, box.Lo[i], box.Hi[i])
					c := cs[rng.IntN(len(cs))]
					e := []float64{c.A, c.B}[rng.IntN(2)]
					x[i] = min(box.Hi[i], max(box.Lo[i], math.Nextafter(e, e+float64(rng.IntN(3)-1))))
				}
			}
			checkCaseBounds(t, f1, f2, rb, o.q.C, x)
		}
	}
	if used < 40 {
		t.Fatalf("the affine cases applied to %d of 120 boxes, want at least 40", used)
	}
}

// checkCaseBounds fails t unless the output difference f2(x) - f1(x), its
// 2-norm and its margin C lie in rb.
func checkCaseBounds(t *testing.T, f1, f2 *nn.Network, rb *regionBounds, c []float64, x []float64) {
	t.Helper()
	y1, _ := f1.Eval(x)
	y2, _ := f2.Eval(x)
	sq, m := 0.0, 0.0
	for j := range y1 {
		d := y2[j] - y1[j]
		sq += d * d
		if c != nil {
			m += c[j] * d
		}
		if !rb.Output[j].Contains(d) {
			t.Fatalf("output %d difference %v at %v outside %v", j, d, x, rb.Output[j])
		}
	}
	if c != nil && (m < rb.Margin.Lo-1e-12 || m > rb.Margin.Hi+1e-12) {
		t.Fatalf("margin %v at %v outside %v", m, x, *rb.Margin)
	}
	if e := math.Sqrt(sq); e > rb.Norm2*(1+1e-12) {
		t.Fatalf("error %v at %v above Norm2 %v", e, x, rb.Norm2)
	}
}

// int8Pair returns a random ReLU network f with nx inputs, two hidden
// layers of 3 to 2+hidden neurons and one or two outputs, and its int8
// copy g calibrated on 32 random points of [-2, 2]^nx.
func int8Pair(t *testing.T, rng *rand.Rand, nx, hidden int) (f, g *nn.Network) {
	t.Helper()
	f = boundstest.Network(rng, []int{nx, 3 + rng.IntN(hidden), 3 + rng.IntN(hidden), 1 + rng.IntN(2)}, 1, nn.Activation{Kind: nn.ReLU})
	var xs [][]float64
	for range 32 {
		lo, hi := make([]float64, nx), make([]float64, nx)
		for i := range lo {
			lo[i], hi[i] = -2, 2
		}
		xs = append(xs, boundstest.Uniform(rng, lo, hi))
	}
	g, _, err := boundstest.Int8(rng, f, xs)
	if err != nil {
		t.Fatal(err)
	}
	return f, g
}
