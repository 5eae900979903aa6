package experiment

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestCopySchemeCopies makes the copies a sweep certifies of a chain of
// convolutions and of a residual graph: the chain's graph copy is its
// chain copy (same outputs at random inputs), saved with its
// convolutions; the graph's copy has no int8 form, and the error names
// the file.
func TestCopySchemeCopies(t *testing.T) {
	q := quantise.Format{FracBits: 6}
	rng := rand.New(rand.NewPCG(1, 2))
	const cnn, resid = "../testdata/graphs/digits_cnn.onnx", "../testdata/graphs/digits_resid.onnx"
	g, net, info, err := modelfile.LoadGraph(cnn, modelfile.Options{})
	if err != nil || net == nil {
		t.Fatalf("%s: chain %v, %v", cnn, net != nil, err)
	}
	box := spec.Box{Lo: make([]float64, net.InputSize()), Hi: make([]float64, net.InputSize())}
	for i := range box.Hi {
		box.Hi[i] = 1
	}
	var s CopyScheme
	chain, err := s.ChainCopies(info, box)(PruneLevel{}, q)
	if err != nil {
		t.Fatal(err)
	}
	asGraph, err := s.GraphCopies(info, g, net, box)(PruneLevel{}, q)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		x := make([]float64, net.InputSize())
		for i := range x {
			x[i] = rng.Float64()
		}
		y1, err1 := chain.Eval(x)
		y2, err2 := asGraph.Eval(x)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for k := range y1 {
			if y1[k] != y2[k] {
				t.Fatalf("output %d: chain copy %v, graph copy %v", k, y1[k], y2[k])
			}
		}
	}
	c, lost, err := s.SavedCopy(info, g, box, PruneLevel{}, q)
	if err != nil || lost || c.Graph == nil {
		t.Errorf("saved copy: lost %v, graph %v, %v", lost, c != nil && c.Graph != nil, err)
	}

	rg, rnet, rinfo, err := modelfile.LoadGraph(resid, modelfile.Options{})
	if err != nil || rnet != nil {
		t.Fatalf("%s: chain %v, %v", resid, rnet != nil, err)
	}
	if _, err := s.GraphCopies(rinfo, rg, nil, spec.Box{})(PruneLevel{}, q); err != nil {
		t.Errorf("graph copy: %v", err)
	}
	_, err = CopyScheme{Int8: true}.GraphCopies(rinfo, rg, nil, spec.Box{})(PruneLevel{}, q)
	if !errors.Is(err, quantise.ErrFormat) || !strings.HasPrefix(err.Error(), resid+": ") {
		t.Errorf("int8 graph copy: %v", err)
	}
}
