package bounds

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// graphMethods are the settings the graph tests run under.
var graphMethods = []GraphOptions{
	{Intermediate: IntermediateBacksub, Batch: 7, Workers: 2},
	{Intermediate: IntermediateWindow, Window: 1, Batch: 64},
	{Intermediate: IntermediateInterval, Batch: 3, Workers: 1},
	{Intermediate: IntermediateAdaptive, Window: 1, Batch: 32},
	{Intermediate: IntermediateBacksub, Batch: 16, IntervalWeightTerms: true},
}

// randBox returns a box of radius eps around a random point of [-1, 1]^n.
func randBox(rng *rand.Rand, n int, eps float64) spec.Box {
	box := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range n {
		c := 2*rng.Float64() - 1
		box.Lo[i], box.Hi[i] = c-eps, c+eps
	}
	return box
}

// boxSamples returns m points of box: random corners, random interior
// points and the two extreme corners.
func boxSamples(rng *rand.Rand, box spec.Box, m int) [][]float64 {
	pts := [][]float64{box.Lo, box.Hi}
	for k := range m {
		x := make([]float64, box.Dim())
		for i := range x {
			t := rng.Float64()
			if k%2 == 0 {
				t = float64(rng.IntN(2))
			}
			x[i] = box.Lo[i] + t*(box.Hi[i]-box.Lo[i])
		}
		pts = append(pts, x)
	}
	return pts
}

// insideAll returns an error naming the first value of vals outside its
// enclosure in net.
func insideAll(net *GraphNet, vals [][]float64) error {
	for v, x := range vals {
		for i, s := range x {
			if !net.Values[v][i].Contains(s) {
				return fmt.Errorf("value %d entry %d: %v outside %v", v, i, s, net.Values[v][i])
			}
		}
	}
	return nil
}

// TestGraphSingleSound samples random graphs of every operation on boxes
// of several sizes and checks every value of every sample against its
// enclosure.
func TestGraphSingleSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	for trial := range 30 {
		g := randGraph(rng)
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		eps := []float64{0.001, 0.05, 0.5}[trial%3]
		box := randBox(rng, g.InputSize(), eps)
		for _, opts := range graphMethods {
			net, err := GraphSingle(g, box, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range boxSamples(rng, box, 60) {
				vals, _ := g.EvalAll(x)
				if err := insideAll(net, vals); err != nil {
					t.Fatalf("trial %d (%s, eps %g): %v", trial, opts.Intermediate, eps, err)
				}
			}
		}
	}
}

// TestGraphBacksubTighter checks that back-substitution gives an output
// enclosure no wider than interval arithmetic, and narrower on a residual
// CNN.
func TestGraphBacksubTighter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := residualCNN(rng, 1, 8, 8, []int{4, 4})
	box := randBox(rng, g.InputSize(), 0.01)
	width := func(o GraphOptions) float64 {
		net, err := GraphSingle(g, box, o)
		if err != nil {
			t.Fatal(err)
		}
		w := 0.0
		for _, x := range net.Output {
			w += x.Width()
		}
		return w
	}
	iv, win, full := width(graphMethods[2]), width(graphMethods[1]), width(graphMethods[0])
	if !(full <= win && win <= iv && full < iv) {
		t.Errorf("output widths: interval %g, window %g, backsub %g", iv, win, full)
	}
}

// TestGraphRelaxSound checks the relaxation lines of a quantiser (across
// both saturation ends), a max pool and the activations on dense grids of
// their input intervals.
func TestGraphRelaxSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	q := &nn.Quantiser{Scale: []float64{0.1}, Zero: []int64{3}, Lo: nn.Int8Lo + 120, Hi: nn.Int8Hi - 110}
	for range 200 {
		x := Interval{-3 * rng.Float64(), 3 * rng.Float64()}
		if rng.IntN(4) == 0 {
			x.Hi = x.Lo + 0.3*rng.Float64()
		}
		ops := []nn.Op{&nn.Quantise{Q: q}, nn.Act{Act: randActivation(rng)}}
		for _, op := range ops {
			rel := nodeRelax(op, [][]Interval{{x}})
			img := nodeImage(op, nil, [][]Interval{{x}})[0]
			for k := range 1001 {
				v := min(x.Lo+float64(k)/1000*(x.Hi-x.Lo), x.Hi)
				y := make([]float64, 1)
				op.Eval(y, [][]float64{{v}})
				lo, up := rel.low[0], rel.up[0]
				if y[0] < lo.A*v+lo.C-1e-12 || y[0] > up.A*v+up.C+1e-12 || !img.Contains(y[0]) {
					t.Fatalf("%s on %v at %v: %v outside lines %v, %v or image %v", op.Describe(), x, v, y[0], lo, up, img)
				}
			}
		}
	}
	wins := [][]int{{0, 1, 2}, {1, 2}, {2}}
	for range 200 {
		x := make([]Interval, 3)
		for i := range x {
			c := rng.NormFloat64()
			x[i] = Interval{c - rng.Float64(), c + rng.Float64()}
		}
		rel := maxPoolRelax(wins, x)
		img := maxPoolImage(wins, x)
		for range 300 {
			p := make([]float64, 3)
			for i := range p {
				p[i] = x[i].Lo + rng.Float64()*(x[i].Hi-x[i].Lo)
			}
			for o, w := range wins {
				m := p[w[0]]
				for _, j := range w {
					m = max(m, p[j])
				}
				lo, up := rel.low[o], rel.up[o]
				if m < lo.A*p[rel.lowAt[o]]+lo.C-1e-12 || m > up.A*p[rel.upAt[o]]+up.C+1e-12 || !img[o].Contains(m) {
					t.Fatalf("max pool %v at %v: %v outside lines or image %v", x, p, m, img[o])
				}
			}
		}
	}
}

// TestGraphSingleErrors checks that bad input is an error naming it.
func TestGraphSingleErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := randGraph(rng)
	box := randBox(rng, g.InputSize(), 0.1)
	cases := []struct {
		name string
		g    *nn.Graph
		box  spec.Box
		opts GraphOptions
		want error
	}{
		{"box of another size", g, randBox(rng, 3, 0.1), DefaultGraphOptions(), nn.ErrDimension},
		{"empty graph", &nn.Graph{InputShape: []int{32}}, box, DefaultGraphOptions(), nn.ErrDimension},
		{"batch 0", g, box, GraphOptions{Batch: 0}, ErrOptions},
		{"window 0", g, box, GraphOptions{Intermediate: IntermediateWindow, Batch: 1}, ErrOptions},
		{"unknown method", g, box, GraphOptions{Intermediate: 9, Batch: 1}, ErrOptions},
	}
	for _, c := range cases {
		if _, err := GraphSingle(c.g, c.box, c.opts); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}

// TestGraphBands checks that back-substituting on bands of rows gives the
// bounds of back-substituting whole values (up to the order of summation
// of the batched convolution products).
func TestGraphBands(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 6 {
		g1 := randGraph(rng)
		if trial%2 == 0 {
			g1 = residualCNN(rng, 1, 8, 8, []int{3, 5})
		}
		g2 := perturbed(rng, g1, 0.01)
		in := spec.Inputs{Box: randBox(rng, g1.InputSize(), 0.02)}
		opts := graphMethods[trial%len(graphMethods)]
		banded, err := GraphPair(g1, g2, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.noBands = true
		whole, _ := GraphPair(g1, g2, in, opts)
		for v, x := range whole.Combined.Values {
			for i, xi := range x {
				if yi := banded.Combined.Values[v][i]; !closeTo(xi.Lo, yi.Lo) || !closeTo(xi.Hi, yi.Hi) {
					t.Fatalf("trial %d: value %d entry %d: banded %v, whole %v", trial, v, i, yi, xi)
				}
			}
		}
	}
}

// closeTo reports whether a and b agree to 1e-9 relative.
func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*(1+math.Abs(a)) }

// TestConvT checks the batched transposed convolution against
// ApplyTransposed on windows of rows and columns, strides, padding and
// dilation, and that it writes nothing outside the window its outputs
// read.
func TestConvT(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, c := range []*nn.Conv2D{
		{InC: 3, InH: 7, InW: 6, OutC: 4, OutH: 7, OutW: 6, KH: 3, KW: 3, Stride: [2]int{1, 1}, Pad: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 1},
		{InC: 2, InH: 8, InW: 8, OutC: 5, OutH: 4, OutW: 4, KH: 3, KW: 3, Stride: [2]int{2, 2}, Pad: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 1},
		{InC: 2, InH: 8, InW: 9, OutC: 3, OutH: 4, OutW: 5, KH: 1, KW: 1, Stride: [2]int{2, 2}, Dil: [2]int{1, 1}, Groups: 1},
		{InC: 2, InH: 9, InW: 9, OutC: 2, OutH: 5, OutW: 5, KH: 3, KW: 2, Stride: [2]int{1, 2}, Pad: [2]int{0, 1}, Dil: [2]int{2, 1}, Groups: 1},
		{InC: 2, InH: 9, InW: 9, OutC: 3, OutH: 5, OutW: 10, KH: 3, KW: 2, Stride: [2]int{1, 1}, Pad: [2]int{0, 1}, Dil: [2]int{2, 1}, Groups: 1},
		{InC: 3, InH: 6, InW: 6, OutC: 2, OutH: 5, OutW: 5, KH: 3, KW: 3, Stride: [2]int{1, 1}, Pad: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 1},
		{InC: 3, InH: 4, InW: 5, OutC: 4, OutH: 4, OutW: 5, KH: 1, KW: 1, Stride: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 1},
		{InC: 9, InH: 10, InW: 11, OutC: 8, OutH: 4, OutW: 5, KH: 3, KW: 4, Stride: [2]int{3, 2}, Pad: [2]int{2, 1}, Dil: [2]int{1, 1}, Groups: 1},
		{InC: 16, InH: 8, InW: 8, OutC: 16, OutH: 8, OutW: 8, KH: 3, KW: 3, Stride: [2]int{1, 1}, Pad: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 1},
		{InC: 8, InH: 8, InW: 8, OutC: 16, OutH: 4, OutW: 4, KH: 3, KW: 3, Stride: [2]int{2, 2}, Pad: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 1},
		{InC: 3, InH: 5, InW: 5, OutC: 2, OutH: 9, OutW: 9, KH: 3, KW: 3, Stride: [2]int{1, 1}, Pad: [2]int{3, 3}, Dil: [2]int{1, 1}, Groups: 1},
	} {
		c.Kernel = make([]float64, c.OutC*c.InC*c.KH*c.KW)
		for i := range c.Kernel {
			c.Kernel[i] = rng.NormFloat64()
		}
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		ct := newConvT(c)
		var s convScratch
		for lo := range c.OutH {
			band := window{lo, lo + 1 + rng.IntN(c.OutH-lo), 0, c.OutW}
			if lo%2 == 1 {
				band.clo = rng.IntN(c.OutW)
				band.chi = band.clo + 1 + rng.IntN(c.OutW-band.clo)
			}
			rows := []int{1, 3, 40}[lo%3]
			lam, got := make([]float64, rows*c.Out()), make([]float64, rows*c.In())
			for r := range rows {
				for m := range c.OutC {
					for h := band.lo; h < band.hi; h++ {
						for ow := band.clo; ow < band.chi; ow++ {
							lam[r*c.Out()+(m*c.OutH+h)*c.OutW+ow] = rng.NormFloat64()
						}
					}
				}
			}
			ct.addTransposed(got, lam, rows, band, &s)
			want := make([]float64, c.In())
			in := convWindow(c, band)
			for r := range rows {
				c.ApplyTransposed(want, lam[r*c.Out():(r+1)*c.Out()])
				for i, w := range want {
					ih, iw := i%(c.InH*c.InW)/c.InW, i%c.InW
					if outside := ih < in.lo || ih >= in.hi || iw < in.clo || iw >= in.chi; outside && got[r*c.In()+i] != 0 {
						t.Fatalf("%+v band %v row %d input %d outside %v: %v", *c, band, r, i, in, got[r*c.In()+i])
					}
					if !closeTo(w, got[r*c.In()+i]) {
						t.Fatalf("%+v band %v row %d input %d: %v, want %v", *c, band, r, i, got[r*c.In()+i], w)
					}
				}
			}
		}
	}
}

// TestGraphSingleMatchesChain checks that back-substitution on a chain's
// graph gives the chain engine's symbolic bounds (up to rounding margins).
func TestGraphSingleMatchesChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, sizes := range [][]int{{5, 20, 20, 20, 3}, {10, 50, 50, 50, 50, 5}} {
		net, err := randnet.New(rng, sizes)
		if err != nil {
			t.Fatal(err)
		}
		box := randBox(rng, sizes[0], 0.05)
		opts := DefaultOptions()
		opts.Method = MethodSymbolic
		chain, err := Single(net, box, opts)
		if err != nil {
			t.Fatal(err)
		}
		graph, err := GraphSingle(net.Graph(), box, DefaultGraphOptions())
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range chain.Post[len(chain.Post)-1] {
			if got := graph.Output[i]; !closeTo(want.Lo, got.Lo) || !closeTo(want.Hi, got.Hi) {
				t.Errorf("%v output %d: graph %v, chain %v", sizes, i, got, want)
			}
		}
	}
}

// TestGraphWorkers checks that the bounds do not depend on the number of
// workers.
func TestGraphWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	g1 := residualCNN(rng, 1, 8, 8, []int{3, 5})
	g2 := perturbed(rng, g1, 0.01)
	in := spec.Inputs{Box: randBox(rng, g1.InputSize(), 0.02)}
	var first *GraphPairBounds
	for _, workers := range []int{1, 3} {
		pb, err := GraphPair(g1, g2, in, GraphOptions{Batch: 8, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = pb
			continue
		}
		for v, x := range pb.Combined.Values {
			for i := range x {
				if x[i] != first.Combined.Values[v][i] {
					t.Fatalf("value %d entry %d: %v with %d workers, %v with 1", v, i, x[i], workers, first.Combined.Values[v][i])
				}
			}
		}
	}
}

// BenchmarkConvT times the batched transposed convolution of 16 rows on
// the layers of the CIFAR-shaped ResNet (testdata/graphs), on a band of 3
// output rows and on whole planes.
func BenchmarkConvT(b *testing.B) {
	rng := rand.New(rand.NewPCG(19, 20))
	conv := func(inC, outC, hw, k, stride int) *nn.Conv2D {
		c := &nn.Conv2D{InC: inC, InH: hw, InW: hw, OutC: outC, OutH: hw / stride, OutW: hw / stride, KH: k, KW: k,
			Stride: [2]int{stride, stride}, Pad: [2]int{k / 2, k / 2}, Dil: [2]int{1, 1}, Groups: 1}
		c.Kernel = make([]float64, outC*inC*k*k)
		for i := range c.Kernel {
			c.Kernel[i] = rng.NormFloat64()
		}
		return c
	}
	const rows = 16
	for _, l := range []struct {
		name string
		c    *nn.Conv2D
	}{
		{"stem", conv(3, 16, 32, 3, 1)},
		{"16x32x32", conv(16, 16, 32, 3, 1)},
		{"16to32s2", conv(16, 32, 32, 3, 2)},
		{"proj16to32", conv(16, 32, 32, 1, 2)},
		{"32x16x16", conv(32, 32, 16, 3, 1)},
		{"64x8x8", conv(64, 64, 8, 3, 1)},
	} {
		c := l.c
		ct := newConvT(c)
		for _, nb := range []int{3, c.OutH} {
			band := window{c.OutH/2 - nb/2, c.OutH/2 - nb/2 + nb, 0, c.OutW}
			lam := make([]float64, rows*c.Out())
			for i := range lam {
				lam[i] = rng.NormFloat64()
			}
			dst := make([]float64, rows*c.In())
			var s convScratch
			b.Run(fmt.Sprintf("%s/band%d", l.name, nb), func(b *testing.B) {
				for b.Loop() {
					ct.addTransposed(dst, lam, rows, band, &s)
				}
			})
		}
	}
}
