package experiment

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// ChainCopies returns the copy of the chain of layers of the model file
// info at each pruning level and width: s.Compress over box made on its
// core, the format's processing built back around it
// (modelfile.Info.Transform). These are the copies WidthSweep.Run
// certifies.
func (s CopyScheme) ChainCopies(info *modelfile.Info, box spec.Box) func(PruneLevel, quantise.Format) (*nn.Network, error) {
	return func(l PruneLevel, q quantise.Format) (*nn.Network, error) {
		return info.Transform(s.Compress(l, q, box))
	}
}

// GraphCopies returns the copy, at each pruning level and width, of the
// model file info read as the graph g, whose chain of layers is net (nil
// when g is not a chain): the chain's copy (ChainCopies) as a graph, or
// else g's (CompressGraph), an error then naming the file. These are the
// copies WidthSweep.RunGraph certifies.
func (s CopyScheme) GraphCopies(info *modelfile.Info, g *nn.Graph, net *nn.Network, box spec.Box) func(PruneLevel, quantise.Format) (*nn.Graph, error) {
	return func(l PruneLevel, q quantise.Format) (*nn.Graph, error) {
		if net != nil {
			c, err := s.ChainCopies(info, box)(l, q)
			if err != nil {
				return nil, err
			}
			return c.Graph(), nil
		}
		c, err := s.CompressGraph(l, q)(g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", info.Path, err)
		}
		return c, nil
	}
}

// SavedCopy returns the chain's copy at level l and width q (ChainCopies)
// as it is saved: with the structure of g, the model's graph (nil for
// none), where that is the same function (modelfile.Compressed.KeepStructure);
// lost reports that g's convolutions are kept as dense layers instead.
func (s CopyScheme) SavedCopy(info *modelfile.Info, g *nn.Graph, box spec.Box, l PruneLevel, q quantise.Format) (c *modelfile.Compressed, lost bool, err error) {
	net, err := s.ChainCopies(info, box)(l, q)
	if err != nil {
		return nil, false, err
	}
	c = &modelfile.Compressed{Net: net, Core: net}
	return c, c.KeepStructure(g, s.CompressGraph(l, q)), nil
}
