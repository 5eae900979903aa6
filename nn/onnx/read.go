package onnx

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// Read reads the ONNX model in the file at path and translates it into a
// network (see the package documentation for what is supported). Info is
// returned whenever the file parses as ONNX, even if the translation fails,
// so that callers can show what the file contains.
func Read(path string) (*nn.Network, *Info, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("onnx: %w", err)
	}
	return Decode(data, path)
}

// Decode is Read for a model held in memory; name (usually the file name)
// prefixes error messages. It is DecodeGraph, then the graph's chain
// (ChainOf; a graph that is no chain is ErrNotChain, naming the ONNX node
// of the first join or max pool).
func Decode(data []byte, name string) (*nn.Network, *Info, error) {
	g, info, m, err := translateGraph(data, name)
	if err != nil {
		return nil, info, err
	}
	info.Graph = nil
	net, lowered, err := chainOf(g, newBudget(len(data)))
	info.Lowered = lowered
	switch {
	case errors.Is(err, nn.ErrNotChain):
		return nil, info, fmt.Errorf("onnx: %s: %w", name, notChain(g, m, err))
	case err != nil:
		return nil, info, fmt.Errorf("onnx: %s: %w", name, err)
	}
	return net, info, nil
}

// ChainOf returns the chain of layers of a graph that ReadGraph read, as
// Read gives it: small convolutions, scalings and average pools lowered to
// dense maps (lowerSmall), nn.Graph.Chain, clippings with one infinite
// bound written with ReLU (halfClips), and the layers without activation
// fused into the next (nn.FuseLayers). g is left as it is. The
// error wraps nn.ErrNotChain for a graph that is no chain.
func ChainOf(g *nn.Graph) (*nn.Network, error) {
	net, _, err := chainOf(g.Clone(), newBudget(0))
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	return net, nil
}

// chainOf is ChainOf on g, which it changes, within bud; it also returns
// the descriptions of the lowered nodes.
func chainOf(g *nn.Graph, bud *budget) (*nn.Network, []string, error) {
	lowered, err := lowerSmall(g, bud)
	if err != nil {
		return nil, lowered, err
	}
	net, err := g.Chain()
	if err != nil {
		return nil, lowered, err
	}
	for i, l := range net.Layers { // the chain's own maps: an identity before an activation
		if c := l.Conv; c != nil && c.Out() <= MaxDenseConvEntries/c.In() {
			if err := grantDense(bud, c.Out(), c.In()); err != nil {
				return nil, lowered, err
			}
			net.Layers[i].W, net.Layers[i].Conv = c.Dense(), nil
		}
	}
	if net.Layers, err = halfClips(net.Layers); err == nil {
		net.Layers, err = nn.FuseLayers(net.Layers)
	}
	if err == nil {
		err = net.Validate()
	}
	if err == nil && net.NumParams() > bud.left {
		err = fmt.Errorf("the network's %d parameters exceed the budget of %d values: %w", net.NumParams(), bud.left, ErrTooLarge)
	}
	if err != nil {
		return nil, lowered, err
	}
	return net, lowered, nil
}

// notChain returns the error of a graph g of model m that is no chain
// (err, Chain's): it names the ONNX node of the first join or max pool, whose
// operator a chain of layers does not hold.
func notChain(g *nn.Graph, m *model, err error) error {
	for _, n := range g.Nodes {
		switch n.Op.(type) {
		case nn.Add, nn.Concat, *nn.MaxPool:
		default:
			continue
		}
		for i, o := range m.graph.nodes {
			if n.Name != "" && o.name == n.Name {
				return fmt.Errorf("%s: operator %q joins or pools values, which a chain of layers does not hold: %w: %w",
					label(i, o), o.opType, ErrUnsupportedOp, ErrNotChain)
			}
		}
	}
	return fmt.Errorf("%w: %w", ErrNotChain, err)
}

// info collects the format details of m; inputs are the data inputs.
func (m *model) info(inputs []Value) *Info {
	in := &Info{
		IRVersion:       m.irVersion,
		Opsets:          m.opsets,
		ProducerName:    m.producerName,
		ProducerVersion: m.producerVersion,
		Initializers:    len(m.graph.inits),
	}
	if len(inputs) > 0 {
		in.Input = inputs[0]
	}
	if len(m.graph.outputs) > 0 {
		in.Output = m.graph.outputs[0]
	}
	for _, t := range m.graph.inits {
		if !slices.Contains(in.InitTypes, t.dataType) {
			in.InitTypes = append(in.InitTypes, t.dataType)
		}
	}
	for _, n := range m.graph.nodes {
		in.Ops = append(in.Ops, n.opType)
	}
	return in
}
