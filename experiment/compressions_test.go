package experiment

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestCompressions checks the names of the compressions, that the chain
// and graph forms agree on a chain's graph, and that a neuron pruning
// reports the neurons it pruned.
func TestCompressions(t *testing.T) {
	net := randnet.Paper(3, 2, 3, 6, 2)
	neurons := prune.DefaultNeuronOptions()
	neurons.Count = 1
	weights := prune.DefaultWeightOptions()
	weights.Sparsity = 0.5
	q := quantise.Format{FracBits: 4}
	for _, c := range []struct {
		comp   Compression
		what   string
		pruned int
	}{
		{QuantiseFixed(quantise.Options{Weights: q, Biases: q}), "fixed point ", 0},
		{Float16(), "float16 (IEEE half precision, round to nearest even)", 0},
		{PruneWeights(weights), "magnitude pruning of 0.5 of the weights (", 0},
		{PruneNeurons(neurons), "1 neuron zeroed (", 1},
	} {
		if !strings.HasPrefix(c.comp.What, c.what) {
			t.Errorf("what %q, want it to begin %q", c.comp.What, c.what)
		}
		out, err := c.comp.Apply(net)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.comp.Pruned()) != c.pruned {
			t.Errorf("%s: %d neurons pruned, want %d", c.comp.What, len(c.comp.Pruned()), c.pruned)
		}
		g, err := c.comp.ApplyGraph(net.Graph())
		if err != nil {
			t.Fatal(err)
		}
		x := []float64{0.3, -0.7}
		y1, err := out.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		y2, err := g.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		for k := range y1 {
			if y1[k] != y2[k] {
				t.Errorf("%s: chain gives %v, graph %v", c.comp.What, y1, y2)
				break
			}
		}
	}
}

// TestCompressionGraph compresses a model file's graph, saves the copy
// and checks its record.
func TestCompressionGraph(t *testing.T) {
	g, _, info, err := modelfile.LoadGraph("../nn/nnet/testdata/tiny.nnet", modelfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := quantise.Format{FracBits: 3}
	c := QuantiseFixed(quantise.Options{Weights: q, Biases: q})
	save := filepath.Join(t.TempDir(), "copy.onnx")
	out, rec, err := c.Graph(info, g, save)
	if err != nil {
		t.Fatal(err)
	}
	back, _, _, err := modelfile.LoadGraph(save, modelfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if back.NumParams() != out.NumParams() || rec.Saved != save || rec.Compression != c.What || rec.Changed == nil {
		t.Errorf("saved %d parameters of %d; record %+v", back.NumParams(), out.NumParams(), rec)
	}
}

// TestCompressionChain compresses a chain of convolutions: in fixed point
// the copy keeps them (a graph of the same function); an int8 copy, made
// of chains only, keeps dense layers and says so.
func TestCompressionChain(t *testing.T) {
	g, net, info, err := modelfile.LoadGraph("../testdata/graphs/digits_cnn.onnx", modelfile.Options{})
	if err != nil || net == nil {
		t.Fatalf("chain %v, %v", net != nil, err)
	}
	q := quantise.Format{FracBits: 6}
	out, lost, err := QuantiseFixed(quantise.Options{Weights: q, Biases: q}).Chain(info, g)
	if err != nil || lost || out.Graph == nil || !out.SameShape {
		t.Fatalf("fixed point: lost %v, graph %v, %v", lost, out != nil && out.Graph != nil, err)
	}
	box := func(n int) (spec.Box, error) {
		b := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
		for i := range b.Hi {
			b.Hi[i] = 1
		}
		return b, nil
	}
	out, lost, err = Int8(quantise.DefaultInt8Options(), "box", nil, box).Chain(info, g)
	if err != nil || !lost || out.Graph != nil {
		t.Errorf("int8: lost %v, graph %v, %v", lost, out != nil && out.Graph != nil, err)
	}
}
