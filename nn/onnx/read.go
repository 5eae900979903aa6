package onnx

import (
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
// (nn.Graph.Chain; a graph that is no chain is ErrNotChain), with small
// convolutions and average pools lowered to dense maps (lowerSmall) and
// layers with no activation fused into the next (nn.FuseLayers).
func Decode(data []byte, name string) (*nn.Network, *Info, error) {
	g, info, m, err := translateGraph(data, name)
	if err != nil {
		return nil, info, err
	}
	info.Graph = nil
	bud := newBudget(len(data))
	if info.Lowered, err = lowerSmall(g, bud); err != nil {
		return nil, info, fmt.Errorf("onnx: %s: %w", name, err)
	}
	net, err := g.Chain()
	if err != nil {
		return nil, info, fmt.Errorf("onnx: %s: %w", name, notChain(g, m, err))
	}
	if net.Layers, err = nn.FuseLayers(net.Layers); err == nil {
		err = net.Validate()
	}
	if err == nil && net.NumParams() > bud.left {
		err = fmt.Errorf("the network's %d parameters exceed the budget of %d values: %w", net.NumParams(), bud.left, ErrTooLarge)
	}
	if err != nil {
		return nil, info, fmt.Errorf("onnx: %s: %w", name, err)
	}
	return net, info, nil
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
				return fmt.Errorf("%s: operator %q: %w in a chain of layers (ReadGraph reads the model as a graph): %w",
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
