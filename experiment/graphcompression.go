package experiment

import (
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/report"
)

// NewGraphCompressionRecord is NewCompressionRecord for a graph g read
// from the model file info and its compressed copy c. Sizes are the input
// size then the output sizes of the dense and convolution nodes; the
// parameters are compared (nn.ParamDiffGraph) when the nodes have the
// same sizes; pruned neurons name their node as Layer.
func NewGraphCompressionRecord(info *modelfile.Info, what string, g, c *nn.Graph, saved string, pruned []prune.Neuron) *CompressionRecord {
	j := &CompressionRecord{Model: info.Path, Format: info.Format.String(), Compression: what,
		Sizes: graphSizes(g), CompressedSize: graphSizes(c), Parameters: g.NumParams(),
		CompressedParameters: c.NumParams(), LargestChange: nan(), TotalChange: nan(), Saved: saved}
	if d, err := nn.ParamDiffGraph(g, c); err == nil {
		j.Changed, j.Zeroed = &d.Changed, &d.Zeroed
		j.LargestChange, j.TotalChange = report.Number(d.MaxAbs), report.Number(d.SumAbs)
	}
	for _, n := range pruned {
		j.PrunedNeurons = append(j.PrunedNeurons, NeuronRecord{Layer: n.Layer, Index: n.Index, Norm: n.Norm})
	}
	return j
}

// graphSizes returns the input size of g and the output size of each of
// its dense and convolution nodes.
func graphSizes(g *nn.Graph) []int {
	s := []int{g.InputSize()}
	for k, n := range g.Nodes {
		if a, ok := n.Op.(*nn.Affine); ok {
			switch a.M.(type) {
			case nn.DenseMap, *nn.Conv2D:
				s = append(s, g.Size(k+1))
			}
		}
	}
	return s
}
