package search

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"gonum.org/v1/gonum/mat"
)

// TestMaxErrorGraphOfChain checks that searching the graphs of two chains
// finds what searching the chains finds, to the bit.
func TestMaxErrorGraphOfChain(t *testing.T) {
	f1, f2 := randnet.Paper(5, 3, 2, 8, 2), randnet.Paper(6, 3, 2, 8, 2)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}, Pairing: spec.SameInput}
	opts := DefaultOptions()
	opts.Exact, opts.Samples, opts.Restarts, opts.Iters = false, 500, 2, 20
	q := spec.Quantity{Norm: spec.Norm2}
	want, err := MaxError(context.Background(), f1, f2, in, q, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MaxErrorGraph(context.Background(), f1.Graph(), f2.Graph(), in, q, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Error != want.Error || !slices.Equal(got.X1, want.X1) || got.Evaluations != want.Evaluations {
		t.Errorf("graph: %v at %v (%d evaluations), chain: %v at %v (%d)", got.Error, got.X1, got.Evaluations,
			want.Error, want.X1, want.Evaluations)
	}
}

// TestGraphBackward checks J^T v against central differences on a graph
// with a residual join, a concatenation and a max pool.
func TestGraphBackward(t *testing.T) {
	f := randnet.Paper(7, 4, 1, 4, 4)
	g := f.Graph() // 4 -> 4 tanh -> 4
	n := len(g.Nodes)
	pool := nn.Pool2D{C: 1, InH: 2, InW: 4, OutH: 1, OutW: 2, KH: 2, KW: 2, Stride: [2]int{2, 2}, Dil: [2]int{1, 1}}
	g.Nodes = append(g.Nodes,
		nn.Node{Op: nn.Add{Negate: true}, Inputs: []int{n, 0}, Shape: []int{4}},
		nn.Node{Op: nn.Concat{}, Inputs: []int{n + 1, 0}, Shape: []int{8}},
		nn.Node{Op: &nn.MaxPool{Pool2D: pool}, Inputs: []int{n + 2}, Shape: []int{1, 1, 2}})
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	m := graphModel{g}
	x, v := []float64{0.3, -0.2, 0.7, 0.1}, []float64{1, -2}
	_, back := m.traced(x)
	grad := back(v)
	for i := range x {
		h := 1e-6
		xp, xm := slices.Clone(x), slices.Clone(x)
		xp[i] += h
		xm[i] -= h
		yp, _ := g.Eval(xp)
		ym, _ := g.Eval(xm)
		fd := ((yp[0]-ym[0])*v[0] + (yp[1]-ym[1])*v[1]) / (2 * h)
		if math.Abs(fd-grad[i]) > 1e-6 {
			t.Errorf("d/dx%d: backward %v, differences %v", i, grad[i], fd)
		}
	}
}

// TestSignAscentGraph checks the sign-gradient ascent on a budget of fewer
// evaluations than inputs: for one linear output the largest error
// |c . x| over [-1, 1]^n is sum |c_i|, at the corner sign(c), which sign
// steps reach from any start; the error returned is the pair's error at
// the point returned, evaluated as nn.Graph.Eval does.
func TestSignAscentGraph(t *testing.T) {
	const n = 500
	rng := rand.New(rand.NewPCG(3, 4))
	w1, w2 := mat.NewDense(1, n, nil), mat.NewDense(1, n, nil)
	want := 0.0
	for i := range n {
		a := rng.NormFloat64()
		c := rng.NormFloat64() / 64
		w1.Set(0, i, a)
		w2.Set(0, i, a+c)
		want += math.Abs((a + c) - a)
	}
	g1 := (&nn.Network{Layers: []nn.Layer{{W: w1, B: []float64{0}}}}).Graph()
	g2 := (&nn.Network{Layers: []nn.Layer{{W: w2, B: []float64{0.5}}}}).Graph()
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range n {
		lo[i], hi[i] = -1, 1
	}
	in := spec.Inputs{Box: spec.Box{Lo: lo, Hi: hi}, Pairing: spec.SameInput}
	q := spec.Quantity{Norm: spec.Norm2}
	opts := DefaultOptions()
	opts.SignAscent, opts.MaxEvals = true, 40
	opts.Samples, opts.MaxCorners, opts.Restarts, opts.Iters = 3, 1, 4, 10
	res, err := MaxErrorGraph(context.Background(), g1, g2, in, q, opts)
	if err != nil {
		t.Fatal(err)
	}
	want += 0.5 // the bias difference, on the side of the larger error
	if math.Abs(res.Error-want) > 1e-9*want || res.Evaluations > opts.MaxEvals {
		t.Errorf("found %v in %d evaluations, want %v in at most %d", res.Error, res.Evaluations, want, opts.MaxEvals)
	}
	y1, _ := g1.Eval(res.X1)
	y2, _ := g2.Eval(res.X2)
	if e := q.Measure(y1, y2); e != res.Error {
		t.Errorf("error %v reported, %v at the point returned", res.Error, e)
	}
}
