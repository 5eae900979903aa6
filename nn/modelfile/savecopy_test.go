package modelfile

import (
	"path/filepath"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/quantise"
)

const digitsCNN = "../../testdata/graphs/digits_cnn.onnx"

// TestKeepStructure checks that a fixed-point copy of a convolutional
// chain keeps its convolutions (the file read back lowers to the very
// chain that was compressed, and its parameter count is the kernels'),
// and that a neuron-pruned copy, which pruning the graph would make
// differently, keeps its layers and says the structure is lost.
func TestKeepStructure(t *testing.T) {
	g, net, info, err := LoadGraph(digitsCNN, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if net == nil || !Structured(g) {
		t.Fatalf("%s: want a chain of convolutions, have chain %v", digitsCNN, net != nil)
	}
	q := quantise.Options{Weights: quantise.Format{FracBits: 6}, Biases: quantise.Format{FracBits: 6}}
	c, err := info.Compress(func(n *nn.Network) (*nn.Network, error) { return quantise.Network(n, q) })
	if err != nil {
		t.Fatal(err)
	}
	if lost := c.KeepStructure(g, func(g *nn.Graph) (*nn.Graph, error) { return quantise.Graph(g, q) }); lost || c.Graph == nil {
		t.Fatalf("fixed point: lost %v, graph %v", lost, c.Graph != nil)
	}
	if c.Diff.Params != g.NumParams() || c.Diff.Changed == 0 {
		t.Errorf("diff over %d parameters (%d changed), want the graph's %d", c.Diff.Params, c.Diff.Changed, g.NumParams())
	}
	path := filepath.Join(t.TempDir(), "q6.onnx")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	back, _, _, err := LoadGraph(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := onnx.ChainOf(back)
	if err != nil || !Structured(back) || !nn.Equal(chain, c.Net) {
		t.Errorf("the saved copy: structured %v, chain %v (%v), want the compressed chain exactly", Structured(back), chain != nil, err)
	}

	opts := prune.DefaultNeuronOptions()
	opts.Count = 4
	p, err := info.Compress(func(n *nn.Network) (*nn.Network, error) {
		out, _, err := prune.Neurons(n, opts)
		return out, err
	})
	if err != nil {
		t.Fatal(err)
	}
	asGraph := func(g *nn.Graph) (*nn.Graph, error) {
		out, _, err := prune.NeuronsGraph(g, opts)
		return out, err
	}
	if lost := p.KeepStructure(g, asGraph); !lost || p.Graph != nil {
		t.Errorf("neuron pruning: lost %v, graph %v; want the layers kept and the structure lost", lost, p.Graph != nil)
	}
}
