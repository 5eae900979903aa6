package verify

import (
	"context"
	"reflect"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestDecideModels decides a chain against its fixed-point copy given as
// chains (DecideAligned's answer, with its alignment) and as graphs only
// (DecideGraph's result, no alignment), and a residual graph pair.
func TestDecideModels(t *testing.T) {
	ctx := context.Background()
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}}
	tol := spec.Tolerance{Norm: spec.NormInf, Eps: []float64{0.5}}
	opts := DefaultOptions()
	opts.MaxNodes = 2000
	f := randnet.Paper(4, 2, 2, 8, 2)
	qo := quantise.DefaultOptions()
	qo.Weights.FracBits, qo.Biases.FracBits = 4, 4
	g, err := quantise.Network(f, qo)
	if err != nil {
		t.Fatal(err)
	}
	chains, err := DecideModels(ctx, f.Graph(), g.Graph(), f, g, in, tol, AlignNeurons, &opts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := DecideAligned(ctx, f, g, in, tol, AlignNeurons, &opts)
	if err != nil {
		t.Fatal(err)
	}
	if chains.Aligned == nil || chains.Result.Status != want.Result.Status || chains.Result.Nodes != want.Result.Nodes {
		t.Errorf("chains: %v in %d nodes (alignment %v), DecideAligned %v in %d", chains.Result.Status, chains.Result.Nodes,
			chains.Aligned != nil, want.Result.Status, want.Result.Nodes)
	}
	for _, pair := range [][2]bool{{true, false}, {false, false}} {
		fc, gc := f, g
		if !pair[0] {
			fc = nil
		}
		if !pair[1] {
			gc = nil
		}
		graphs, err := DecideModels(ctx, f.Graph(), g.Graph(), fc, gc, in, tol, AlignNeurons, &opts)
		if err != nil {
			t.Fatal(err)
		}
		r, err := DecideGraph(ctx, f.Graph(), g.Graph(), in, tol, &opts)
		if err != nil {
			t.Fatal(err)
		}
		if graphs.Aligned != nil || graphs.Result.Status != r.Status || graphs.Result.Nodes != r.Nodes || !reflect.DeepEqual(graphs.Result.Tolerance, r.Tolerance) {
			t.Errorf("chain %v: %v in %d nodes, DecideGraph %v in %d", pair, graphs.Result.Status, graphs.Result.Nodes, r.Status, r.Nodes)
		}
	}
	fr, gr := residualPair(t, 1, 6)
	if _, err := DecideModels(ctx, fr, gr, nil, nil, in, tol, AlignNeurons, &opts); err != nil {
		t.Errorf("residual graphs: %v", err)
	}
}
