package bounds

import "github.com/nnbound/nnbound/nn"

// symbolicNet tightens net by symbolic propagation. Not implemented yet: the
// interval bounds are returned unchanged.
func symbolicNet(f *nn.Network, net *Net) {}

// symbolicPair tightens pb by symbolic and differential propagation. Not
// implemented yet: the interval bounds are returned unchanged.
func symbolicPair(f1, f2 *nn.Network, in Inputs, pb *PairBounds) {}
