package modelfile

import (
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
)

// KeepStructure gives c the structure of g, the graph of the model whose
// chain of layers was compressed (a model read as both, LoadGraph), when
// g holds maps its chain carries as dense matrices (a convolution, a
// pooling) and asGraph, the same compression made on g, gives a graph
// whose chain is c.Net exactly (every parameter and activation the same,
// no quantisers: the same function). Then c.Graph is that graph and
// c.Diff compares its parameters with g's (a convolution's kernel once,
// not at every position). It reports whether g's structure is lost: g
// has such maps and c keeps layers only.
func (c *Compressed) KeepStructure(g *nn.Graph, asGraph func(*nn.Graph) (*nn.Graph, error)) (lost bool) {
	if g == nil || !Structured(g) {
		return false
	}
	gc := sameCopy(g, c.Net, asGraph)
	if gc == nil {
		return true
	}
	c.Graph = gc
	if d, err := nn.ParamDiffGraph(g, gc); err == nil {
		c.Diff = d
	}
	return false
}

// Save writes the copy to the file path in the format its extension
// names, atomically: c.Graph when there is one and path names an ONNX
// file (a convolution written as one), else c.Net (Save).
func (c *Compressed) Save(path string) error {
	if c.Graph != nil && FormatOf(path) == ONNX {
		return SaveGraph(path, c.Graph)
	}
	return Save(path, c.Net)
}

// Structured reports whether g has a map other than a dense matrix, which
// its chain of layers (onnx.ChainOf) may carry as one.
func Structured(g *nn.Graph) bool {
	for _, n := range g.Nodes {
		a, ok := n.Op.(*nn.Affine)
		if !ok {
			continue
		}
		if _, dense := a.M.(nn.DenseMap); !dense {
			return true
		}
	}
	return false
}

// sameCopy returns asGraph(g) when its chain is net exactly, else nil.
func sameCopy(g *nn.Graph, net *nn.Network, asGraph func(*nn.Graph) (*nn.Graph, error)) *nn.Graph {
	if asGraph == nil {
		return nil
	}
	gc, err := asGraph(g)
	if err != nil {
		return nil
	}
	chain, err := onnx.ChainOf(gc)
	if err != nil || net.Quantised() || !nn.Equal(chain, net) {
		return nil
	}
	return gc
}
