package verify

import (
	"fmt"
	"sync"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// forwardSymbols times the widest layer is the number of relaxed ReLUs
// past which the forward bound gives up: on VeriPrune 1_1 pruned5 (layers
// of 50) the nodes it settled had relaxed 48-108, the others a median of
// 457, at a cost growing with their number.
const forwardSymbols = 3

// forwardPool returns a pool of bounds.ForwardDiff workspaces for the
// pair, or nil when forward propagation does not apply: inputs paired
// other than x2 = x, or networks it does not support (bounds.ErrUnsupported).
func forwardPool(f, g *nn.Network, in spec.Inputs) *sync.Pool {
	if in.Pairing != spec.SameInput {
		return nil
	}
	if _, err := bounds.NewForwardDiff(f, g); err != nil {
		return nil
	}
	width := 0
	for _, n := range []*nn.Network{f, g} {
		for _, l := range n.Layers {
			width = max(width, l.Out())
		}
	}
	return &sync.Pool{New: func() any {
		fd, err := bounds.NewForwardDiff(f, g)
		if err != nil { // checked above
			panic(err)
		}
		fd.MaxSymbols = forwardSymbols * width
		return fd
	}}
}

// boundForward tightens o.mag on box by forward symbolic propagation
// (bounds.ForwardDiff, a fraction of the cost of bounds.Pair) and reports
// whether that settled every open output.
func (d *decider) boundForward(box spec.Box, o *outcome) (bool, error) {
	if d.forward == nil {
		return false, nil
	}
	fd := d.forward.Get().(*bounds.ForwardDiff)
	defer d.forward.Put(fd)
	out, err := fd.Bound(box)
	if err != nil {
		return false, fmt.Errorf("verify: forward bound of box %v..%v: %w", box.Lo, box.Hi, err)
	}
	for _, k := range o.open {
		o.mag[k] = min(o.mag[k], out[k].Mag())
	}
	return d.settle(o), nil
}
