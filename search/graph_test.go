package search

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
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
