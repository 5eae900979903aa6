package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/quantise"
)

// parseFracBits parses the --frac-bits list of nnbound sweep: a range
// "A:B", a single width "A", or a list "2,4,8", each width in 1 to
// quantise.MaxFracBits. The result is in the order given, without
// repeats.
func parseFracBits(s string) ([]int, error) {
	bad := func(format string, a ...any) error {
		return usagef("--frac-bits %s: %s", s, fmt.Sprintf(format, a...))
	}
	var out []int
	add := func(fb int) error {
		if fb < 1 || fb > quantise.MaxFracBits {
			return bad("%d fractional bits: want 1 to %d", fb, quantise.MaxFracBits)
		}
		for _, v := range out {
			if v == fb {
				return nil
			}
		}
		out = append(out, fb)
		return nil
	}
	atoi := func(p string) (int, error) {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return 0, bad("%q is not a whole number", strings.TrimSpace(p))
		}
		return v, nil
	}
	if a, b, ok := strings.Cut(s, ":"); ok {
		lo, err := atoi(a)
		if err != nil {
			return nil, err
		}
		hi, err := atoi(b)
		if err != nil {
			return nil, err
		}
		if lo > hi {
			return nil, bad("the range is inverted (%d > %d)", lo, hi)
		}
		for fb := lo; fb <= hi; fb++ {
			if err := add(fb); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for _, p := range strings.Split(s, ",") {
		fb, err := atoi(p)
		if err != nil {
			return nil, err
		}
		if err := add(fb); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parseInts parses a comma-separated list of non-negative integers for
// flag ("" gives nil).
func parseInts(flag, s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 0 {
			return nil, usagef("--%s: %q is not a whole number >= 0", flag, strings.TrimSpace(p))
		}
		out = append(out, v)
	}
	return out, nil
}

// parseFractions parses a comma-separated list of fractions in [0, 1] for
// flag ("" gives nil).
func parseFractions(flag, s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v >= 0 && v <= 1) {
			return nil, usagef("--%s: %q is not a fraction in [0, 1]", flag, strings.TrimSpace(p))
		}
		out = append(out, v)
	}
	return out, nil
}

// pruneLevel is one pruning level of a sweep: nothing, K neurons or a
// fraction of the weights.
type pruneLevel struct {
	neurons  int
	sparsity float64
	kind     int // 0 none, 1 neurons, 2 sparsity
}

func (l pruneLevel) String() string {
	switch l.kind {
	case 1:
		return fmt.Sprintf("%d neurons", l.neurons)
	case 2:
		return fmt.Sprintf("%g%% of weights", 100*l.sparsity)
	}
	return "none"
}

// apply returns the pruned copy of core.
func (l pruneLevel) apply(core *nn.Network) (*nn.Network, error) {
	switch l.kind {
	case 1:
		o := prune.DefaultNeuronOptions()
		o.Count = l.neurons
		net, _, err := prune.Neurons(core, o)
		return net, err
	case 2:
		o := prune.DefaultWeightOptions()
		o.Sparsity = l.sparsity
		net, _, err := prune.Weights(core, o)
		return net, err
	}
	return core, nil
}
