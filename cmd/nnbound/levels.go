package main

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/prune"
)

// pruneLevel is one pruning level of a sweep: K neurons, a fraction of
// the weights, or nothing when both are zero.
type pruneLevel struct {
	neurons  int
	sparsity float64
}

// String names the level as the sweep table shows it: "4 neurons",
// "50% of weights" or "none".
func (l pruneLevel) String() string {
	switch {
	case l.neurons > 0:
		return fmt.Sprintf("%d neurons", l.neurons)
	case l.sparsity > 0:
		return fmt.Sprintf("%g%% of weights", 100*l.sparsity)
	}
	return "none"
}

// apply returns the pruned copy of core.
func (l pruneLevel) apply(core *nn.Network) (*nn.Network, error) {
	switch {
	case l.neurons > 0:
		o := prune.DefaultNeuronOptions()
		o.Count = l.neurons
		net, _, err := prune.Neurons(core, o)
		return net, err
	case l.sparsity > 0:
		o := prune.DefaultWeightOptions()
		o.Sparsity = l.sparsity
		net, _, err := prune.Weights(core, o)
		return net, err
	}
	return core, nil
}

// sweepLevels returns the pruning levels of --neurons and --sparsity (a
// single "none" level without them).
func sweepLevels(f *sweepFlags) ([]pruneLevel, error) {
	ks, err := parseInts("neurons", f.neurons)
	if err != nil {
		return nil, err
	}
	ss, err := parseFractions("sparsity", f.sparsity)
	if err != nil {
		return nil, err
	}
	if ks != nil && ss != nil {
		return nil, usagef("--neurons and --sparsity both give pruning levels: use one")
	}
	var levels []pruneLevel
	for _, k := range ks {
		levels = append(levels, pruneLevel{neurons: k})
	}
	for _, s := range ss {
		levels = append(levels, pruneLevel{sparsity: s})
	}
	if levels == nil {
		levels = []pruneLevel{{}}
	}
	return levels, nil
}
