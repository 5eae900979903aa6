package main

import "github.com/nnbound/nnbound/experiment"

// sweepLevels returns the pruning levels of --neurons and --sparsity (a
// single "none" level without them).
func sweepLevels(f *sweepFlags) ([]experiment.PruneLevel, error) {
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
	return experiment.PruneLevels(ks, ss), nil
}
