package experiment

import (
	"context"
	"fmt"
	"io"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// RunGraph is Run for a graph g1 and its graph copies: each certified by
// certify.BoundGraph (bound propagation with input splitting; the SDP is
// for chains) with the sweep's options, as quantise --certify certifies
// one graph copy.
func (s *WidthSweep) RunGraph(ctx context.Context, g1 *nn.Graph, box spec.Box,
	copyOf func(PruneLevel, quantise.Format) (*nn.Graph, error), stderr io.Writer) ([]SweepRow, error) {
	return s.run(ctx, stderr, func(ctx context.Context, l PruneLevel, o certjob.Job) (*certify.Certificate, error) {
		g2, err := copyOf(l, o.Quant)
		if err != nil {
			return nil, err
		}
		return certify.BoundGraph(ctx, g1, g2, o.Inputs(box), o.Quantity(), o.Options)
	})
}

// CompressGraph returns the graph copy of g at level l and width q:
// pruned (prune.NeuronsGraph or prune.WeightsGraph), then its weights and
// biases quantised to q (quantise.Graph). Activation rounding and int8
// copies are made of chains only, and are an error here.
func (s CopyScheme) CompressGraph(l PruneLevel, q quantise.Format) func(g *nn.Graph) (*nn.Graph, error) {
	return func(g *nn.Graph) (*nn.Graph, error) {
		switch {
		case s.Int8:
			return nil, fmt.Errorf("experiment: int8 copies (quantise.Int8) are made of chains of layers, not of graphs: %w", quantise.ErrFormat)
		case s.ActFracBits != 0:
			return nil, fmt.Errorf("experiment: activation rounding is made in chains of layers, not in graphs: %w", quantise.ErrFormat)
		}
		pruned, err := l.ApplyGraph(g)
		if err != nil {
			return nil, err
		}
		return quantise.Graph(pruned, quantise.Options{Weights: q, Biases: q})
	}
}
