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
// prefixes error messages.
func Decode(data []byte, name string) (*nn.Network, *Info, error) {
	m, err := decodeModel(data)
	if err != nil {
		return nil, nil, fmt.Errorf("onnx: %s: %w", name, err)
	}
	b := newBuilder(m.graph, newBudget(len(data)))
	info := m.info(b.dataInputs())
	net, err := b.run()
	info.Lowered = b.lowerings
	if err == nil {
		err = net.Validate()
	}
	if err != nil {
		return nil, info, fmt.Errorf("onnx: %s: %w", name, err)
	}
	return net, info, nil
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
