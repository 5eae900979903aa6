package verify

import (
	"context"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// DecideModels decides tol on in for two models read as the graphs f and
// g, whose chains of layers are fc and gc (nil for a graph that is not a
// chain): two chains by DecideAligned with the alignment a, any other
// pair through the graphs by DecideGraph, without alignment.
func DecideModels(ctx context.Context, f, g *nn.Graph, fc, gc *nn.Network, in spec.Inputs, tol spec.Tolerance, a Alignment, opts *Options) (*Answer, error) {
	if fc == nil || gc == nil {
		r, err := DecideGraph(ctx, f, g, in, tol, opts)
		if err != nil {
			return nil, err
		}
		return &Answer{Result: r}, nil
	}
	return DecideAligned(ctx, fc, gc, in, tol, a, opts)
}

// DecidePropertyModels decides the two-network property p for two models
// read as the graphs f and g, whose chains of layers are fc and gc (nil
// for a graph that is not a chain): two chains by DecidePropertyAligned
// with the alignment a, any other pair through the graphs by
// DecidePropertyGraph, without alignment.
func DecidePropertyModels(ctx context.Context, f, g *nn.Graph, fc, gc *nn.Network, p *spec.Property, a Alignment, opts *Options) (*Answer, error) {
	if fc == nil || gc == nil {
		r, err := DecidePropertyGraph(ctx, f, g, p, opts)
		if err != nil {
			return nil, err
		}
		return &Answer{Result: r}, nil
	}
	return DecidePropertyAligned(ctx, fc, gc, p, a, opts)
}

// CheckPointModels checks the pair x, xg against c as DecideModels's
// verdicts do: on the chains fc and gc by CheckPoint when both are
// chains, else on the graphs f and g by CheckPointGraph.
func CheckPointModels(f, g *nn.Graph, fc, gc *nn.Network, x, xg []float64, c Criterion) (*Point, Status, error) {
	if fc == nil || gc == nil {
		return CheckPointGraph(f, g, x, xg, c)
	}
	return CheckPoint(fc, gc, x, xg, c)
}
