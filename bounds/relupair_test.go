package bounds

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"gonum.org/v1/gonum/mat"
)

// reluAct is the ReLU activation.
var reluAct = nn.Activation{Kind: nn.ReLU}

// pairH returns lz relu(a) + ld (relu(a + d) - relu(a)).
func pairH(lz, ld, a, d float64) float64 {
	return lz*max(a, 0) + ld*(max(a+d, 0)-max(a, 0))
}

// randomPairBox returns a box of (a, d) with a straddling 0 and d of every
// kind: tiny or wide, straddling 0, positive, negative, or wider than a.
func randomPairBox(rng *rand.Rand) (pre1, dd Interval) {
	l, u := -math.Exp(3*rng.NormFloat64()), math.Exp(3*rng.NormFloat64())
	w := math.Max(-l, u) * math.Exp(-4+4*rng.NormFloat64())
	switch rng.IntN(4) {
	case 0:
		dd = Interval{-w * rng.Float64(), w * rng.Float64()}
	case 1:
		dd = Interval{w * rng.Float64() / 2, w}
	case 2:
		dd = Interval{-w, -w * rng.Float64() / 2}
	default:
		dd = Interval{-(u - l) * rng.Float64() * 2, (u - l) * rng.Float64() * 2}
	}
	return Interval{l, u}, dd
}

// TestPairPlanesSoundOnGrid checks every candidate plane of the per-row
// relaxation of lz z1 + ld delta (with its offset), and the one chosen,
// against h on a 201 x 201 grid of the box, its vertices and the points
// just off the kinks, for random boxes and coefficients.
func TestPairPlanesSoundOnGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	for trial := range 150 {
		pre1, dd := randomPairBox(rng)
		lo, hi := relax(reluAct, pre1.Lo, pre1.Hi)
		dLo, dHi := plane{0, 0, math.Min(dd.Lo, 0)}, plane{0, 0, math.Max(dd.Hi, 0)}
		p := newPairNeuron(0, pre1, dd, lo, hi, dLo, dHi)
		if p == nil {
			t.Fatalf("trial %d: no pair neuron for %v x %v", trial, pre1, dd)
		}
		lz, ld := rng.NormFloat64(), rng.NormFloat64()
		if trial%5 == 0 {
			lz *= 1e-3 // a float16 copy: the coefficient of z1 is a weight difference
		}
		var planes []plane
		ds := p.upD
		if ld < 0 {
			ds = p.loD
		}
		for _, sz := range p.zs {
			for _, q := range ds {
				A, B := lz*sz+ld*q.A, ld*q.B
				planes = append(planes, plane{A, B, p.offset(lz, ld, A, B)})
			}
		}
		best, ok := p.best(lz, ld)
		if !ok {
			t.Fatalf("trial %d: no plane", trial)
		}
		planes = append(planes, best)
		pts := gridPoints(pre1, dd, 200)
		for k, pl := range planes {
			for _, v := range pts {
				if h := pairH(lz, ld, v[0], v[1]); pl.at(v[0], v[1]) < h-1e-12*(1+math.Abs(h)) {
					t.Fatalf("trial %d: plane %d %+v below h = %g at %v (box %v x %v, lz %g, ld %g)",
						trial, k, pl, h, v, pre1, dd, lz, ld)
				}
			}
		}
		ca, cd := pre1.Lo/2+pre1.Hi/2, dd.Lo/2+dd.Hi/2
		for k, pl := range planes[:len(planes)-1] {
			if best.at(ca, cd) > pl.at(ca, cd)+1e-5*pairScale(pre1, dd, lz, ld) {
				t.Fatalf("trial %d: best plane is %g at the centre, candidate %d is %g", trial, best.at(ca, cd), k, pl.at(ca, cd))
			}
		}
	}
}

// gridPoints returns an (n+1) x (n+1) grid of the box pre1 x dd with the
// vertices of the regions of h and the points on either side of its kinks.
func gridPoints(pre1, dd Interval, n int) [][2]float64 {
	var pts [][2]float64
	for i := range n + 1 {
		a := min(pre1.Lo+(pre1.Hi-pre1.Lo)*float64(i)/float64(n), pre1.Hi)
		for j := range n + 1 {
			pts = append(pts, [2]float64{a, min(dd.Lo+(dd.Hi-dd.Lo)*float64(j)/float64(n), dd.Hi)})
		}
	}
	pts = append(pts, pairVertices(pre1, dd)...)
	for j := range n + 1 {
		d := min(dd.Lo+(dd.Hi-dd.Lo)*float64(j)/float64(n), dd.Hi)
		for _, a := range []float64{-d, math.Nextafter(-d, 1), math.Nextafter(-d, -1), 0, 1e-300, -1e-300} {
			if a >= pre1.Lo && a <= pre1.Hi {
				pts = append(pts, [2]float64{a, d})
			}
		}
	}
	return pts
}

// float16Neuron returns the per-row data of a neuron with a in pre1 and d
// in dd, with the ReLU's lines and the chords in d as the layer's lines.
func float16Neuron(pre1, dd Interval) (p *pairNeuron, lo, hi line, dLo, dHi plane) {
	lo, hi = relax(reluAct, pre1.Lo, pre1.Hi)
	s := Interval{0, 1}
	dLo, dHi = slopeChordBelow(s, dd), slopeChordAbove(s, dd)
	return newPairNeuron(0, pre1, dd, lo, hi, dLo, dHi), lo, hi, dLo, dHi
}

// TestPairPlanesTighterThanSeparate checks that on a float16-like neuron
// (D small against the range of a) the per-row plane is lower at the
// centre than the separate lines of z1 and delta, and equal to h at the
// corners where both ReLUs are off and on when lz = 0.
func TestPairPlanesTighterThanSeparate(t *testing.T) {
	pre1, dd := Interval{-1, 2}, Interval{-1e-3, 2e-3}
	p, lo, hi, dLo, dHi := float16Neuron(pre1, dd)
	for _, c := range []struct{ lz, ld float64 }{{1e-3, 1}, {-1e-3, 1}, {1e-3, -1}, {0, 1}, {0, -1}, {2, 0.5}} {
		t.Run(fmt.Sprint(c.lz, c.ld), func(t *testing.T) {
			z, d := hi, dHi
			if c.lz < 0 {
				z = lo
			}
			if c.ld < 0 {
				d = dLo
			}
			sep := c.lz*(z.A*0.5+z.C) + c.ld*d.at(0.5, 5e-4)
			pl, _ := p.best(c.lz, c.ld)
			got := pl.at(0.5, 5e-4)
			if got > sep+1e-12*math.Abs(sep) {
				t.Errorf("per-row plane %g at the centre, separate lines %g", got, sep)
			}
		})
	}
}

// TestPairPlaneIsEnvelope checks that the chosen plane's value at the
// centre is the concave envelope of h there: no sound plane through three
// vertices (each with its exact offset, all 165 triples) is lower.
func TestPairPlaneIsEnvelope(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	for trial := range 300 {
		pre1, dd := randomPairBox(rng)
		lo, hi := relax(reluAct, pre1.Lo, pre1.Hi)
		p := newPairNeuron(0, pre1, dd, lo, hi, plane{0, 0, math.Min(dd.Lo, 0)}, plane{0, 0, math.Max(dd.Hi, 0)})
		lz, ld := rng.NormFloat64(), rng.NormFloat64()
		ca, cd := pre1.Lo/2+pre1.Hi/2, dd.Lo/2+dd.Hi/2
		pl, _ := p.best(lz, ld)
		got := pl.at(ca, cd)
		brute := math.Inf(1)
		nv := len(p.a)
		for i := range nv {
			for j := i + 1; j < nv; j++ {
				for k := j + 1; k < nv; k++ {
					h := func(v int) float64 { return pairH(lz, ld, p.a[v], p.d[v]) }
					a1, d1, h1 := p.a[i]-p.a[k], p.d[i]-p.d[k], h(i)-h(k)
					a2, d2, h2 := p.a[j]-p.a[k], p.d[j]-p.d[k], h(j)-h(k)
					det := a1*d2 - a2*d1
					if det == 0 {
						continue
					}
					A, B := (h1*d2-h2*d1)/det, (a1*h2-a2*h1)/det
					brute = math.Min(brute, plane{A, B, p.offset(lz, ld, A, B)}.at(ca, cd))
				}
			}
		}
		if got > brute+1e-5*pairScale(pre1, dd, lz, ld) {
			t.Errorf("trial %d: chosen plane %g at the centre, a triangle's %g (box %v x %v, lz %g, ld %g)", trial, got, brute, pre1, dd, lz, ld)
		}
	}
}

// TestPairPlanesSoundOnInputGrid checks the bounds of ReLU pairs whose
// joint back-substitution uses the per-row planes (a float16 or slightly
// perturbed copy, same input, two inputs) on a dense 121 x 121 grid of the
// box: every field of PairBounds and a random margin.
func TestPairPlanesSoundOnInputGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	relu := nn.Activation{Kind: nn.ReLU}
	used := 0 // neurons relaxed per row, over all trials
	for trial := range 8 {
		sizes := []int{2, 6 + rng.IntN(7), 6 + rng.IntN(7), 2}
		if trial%2 == 1 {
			sizes = append(sizes[:3], 4+rng.IntN(5), 2)
		}
		f1 := boundstest.Network(rng, sizes, 0.5+rng.Float64(), relu)
		f2 := boundstest.Float16(f1)
		if trial%4 >= 2 {
			f2 = boundstest.Perturb(rng, f1, 0.003)
		}
		in := spec.Inputs{Box: randomBox(rng, 2)}
		pb, err := Pair(f1, f2, in, Options{Method: MethodSymbolic})
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range pb.prop.jointPairs {
			used += len(ps)
		}
		c := []float64{rng.NormFloat64(), rng.NormFloat64()}
		m, err := pb.Margin(c)
		if err != nil {
			t.Fatal(err)
		}
		const n = 120
		for i := range n + 1 {
			for j := range n + 1 {
				x := []float64{
					min(in.Box.Lo[0]+(in.Box.Hi[0]-in.Box.Lo[0])*float64(i)/n, in.Box.Hi[0]),
					min(in.Box.Lo[1]+(in.Box.Hi[1]-in.Box.Lo[1])*float64(j)/n, in.Box.Hi[1]),
				}
				if err := checkPair(f1, f2, pb, x, x); err != nil {
					t.Fatalf("trial %d: at x=%v: %v", trial, x, err)
				}
				y1, _ := f1.Eval(x)
				y2, _ := f2.Eval(x)
				v := c[0]*(y2[0]-y1[0]) + c[1]*(y2[1]-y1[1])
				if !near(m, v, math.Abs(c[0]*y1[0])+math.Abs(c[1]*y1[1])) {
					t.Fatalf("trial %d: margin %v at x=%v outside %v", trial, v, x, m)
				}
			}
		}
	}
	if used < 20 {
		t.Errorf("only %d neurons relaxed per row in all trials", used)
	}
	t.Logf("%d neurons relaxed per row", used)
}

// pairScale is the size of h on the box: best compares planes a millionth
// of the box's sides off its centre and keeps the layer's lines unless a
// plane is lower by 2e-6 of it.
func pairScale(pre1, dd Interval, lz, ld float64) float64 {
	return math.Abs(lz)*(pre1.Hi-pre1.Lo) + math.Abs(ld)*(dd.Hi-dd.Lo+pre1.Hi-pre1.Lo)
}

// TestRelaxPairsOverflowKeepsTerms checks that a row whose plane search
// overflows still bounds its target: its z1 and delta go to the layer's
// lines, and the bound is not below h's maximum.
func TestRelaxPairsOverflowKeepsTerms(t *testing.T) {
	pre1, dd := Interval{-1, 2}, Interval{-1e-3, 2e-3}
	p, lo, hi, dLo, dHi := float16Neuron(pre1, dd)
	rel := stepRelax{cols: 2,
		Lower: []affineBound{{[]term{{0, lo.A}}, lo.C}, {[]term{{0, dLo.A}, {1, dLo.B}}, dLo.C}},
		Upper: []affineBound{{[]term{{0, hi.A}}, hi.C}, {[]term{{0, dHi.A}, {1, dHi.B}}, dHi.C}}}
	for _, lz := range []float64{1e308, 1, 0} {
		f := newForm(mat.NewDense(1, 2, []float64{lz, 1e308}), []float64{0}, false)
		f.relaxPairs(rel, []*pairNeuron{p}, 1, []float64{pre1.Mag(), dd.Mag()})
		got := f.concretise([]Interval{pre1, dd})[0]
		if want := pairH(lz, 1e308, 2, 2e-3); !(got >= want) {
			t.Errorf("lz %g: bound %g below h = %g", lz, got, want)
		}
	}
}
