package modelfile

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
)

// LoadGraph reads the model at path as a computation graph, and as the
// network it is when the graph is a chain of layers (nil otherwise): an
// ONNX file by the graph reader, any other format as Load reads it (with
// Options.Core), the graph being its chain's. Errors are Load's.
func LoadGraph(path string, opts Options) (*nn.Graph, *nn.Network, *Info, error) {
	data, info, err := read(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if info.Format != ONNX {
		net, info, err := decode(data, info, opts)
		if err != nil {
			return nil, nil, nil, err
		}
		return net.Graph(), net, info, nil
	}
	g, oi, err := onnx.DecodeGraph(data, info.Path)
	if oi != nil {
		info.Summary = oi.String()
	}
	if err != nil {
		return nil, nil, nil, err
	}
	net, err := onnx.ChainOf(g)
	if err != nil {
		net = nil // not a chain: the graph serves
	}
	info.Core = net
	return g, net, info, nil
}

// NodeDescription describes one node of a graph.
type NodeDescription struct {
	Op         string `json:"op"`
	Name       string `json:"name,omitempty"`
	Inputs     []int  `json:"inputs"`
	Shape      []int  `json:"shape"`
	Parameters int    `json:"parameters"`
}

// DescribeGraph returns the Description of a graph that is not a chain:
// its nodes in place of layers.
func DescribeGraph(g *nn.Graph, info *Info) Description {
	j := Description{File: info.Path, Bytes: info.Size, Format: info.Format.String(), Sniffed: info.Sniffed,
		Details: []Detail{}, Inputs: g.InputSize(), Outputs: g.OutputSize(), Parameters: g.NumParams(),
		CoreParameters: g.NumParams(), Layers: []LayerDescription{}}
	j.addSummary(info.Summary)
	for _, n := range g.Nodes {
		d := NodeDescription{Op: n.Op.Describe(), Name: n.Name, Inputs: n.Inputs, Shape: n.Shape}
		if a, ok := n.Op.(*nn.Affine); ok {
			d.Parameters = len(a.Weights()) + len(a.ModelBias())
		}
		j.Nodes = append(j.Nodes, d)
	}
	return j
}

// writeNodes prints the table of a graph's nodes: value k+1 is node k's
// output, value 0 the input.
func (d *Description) writeNodes(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "graph:            %d nodes (value 0 is the input, value k+1 node k's output)\n", len(d.Nodes)); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  node\treads\tshape\tparameters\top\n")
	for k, n := range d.Nodes {
		reads := make([]string, len(n.Inputs))
		for i, v := range n.Inputs {
			reads[i] = fmt.Sprint(v)
		}
		shape := make([]string, len(n.Shape))
		for i, s := range n.Shape {
			shape[i] = fmt.Sprint(s)
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%s\n", k, strings.Join(reads, ","), strings.Join(shape, "x"), n.Parameters, n.Op)
	}
	return tw.Flush()
}
