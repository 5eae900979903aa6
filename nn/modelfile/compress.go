package modelfile

import "github.com/nnbound/nnbound/nn"

// Compressed is the compressed copy of a network read from a file.
type Compressed struct {
	Net  *nn.Network // the network to save (the format's processing included)
	Core *nn.Network // the compressed core network
	// Graph, if not nil, is Net with the structure of the model's graph
	// (KeepStructure): the same function, a convolution kept as one.
	Graph *nn.Graph
	// Diff compares Core with the original core; SameShape is false when
	// the compression changed the shape (pruning that removes neurons).
	Diff      nn.Diff
	SameShape bool
}

// Compress applies f to the core network (see Transform) and compares the
// result with the original core.
func (i *Info) Compress(f func(*nn.Network) (*nn.Network, error)) (*Compressed, error) {
	c := &Compressed{}
	net, err := i.Transform(func(core *nn.Network) (*nn.Network, error) {
		out, err := f(core)
		c.Core = out
		return out, err
	})
	if err != nil {
		return nil, err
	}
	c.Net = net
	if d, err := nn.ParamDiff(i.Core, c.Core); err == nil {
		c.Diff, c.SameShape = d, true
	}
	return c, nil
}
