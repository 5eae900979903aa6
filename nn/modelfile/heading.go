package modelfile

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
)

// Heading names the model read from the file of info for the heading of
// a command's report: for net, its chain of layers,
//
//	PATH (FORMAT[, raw units | normalised core]), SIZES
//
// (Name, then nn.FormatSizes), and for a graph g that is not a chain
// (net nil)
//
//	PATH (graph of N nodes, P parameters)
func (i *Info) Heading(net *nn.Network, g *nn.Graph) string {
	if net != nil {
		return i.Name(net) + ", " + nn.FormatSizes(net.Sizes())
	}
	return fmt.Sprintf("%s (graph of %d nodes, %d parameters)", i.Path, len(g.Nodes), g.NumParams())
}
