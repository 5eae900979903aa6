package bounds

import (
	"errors"
	"fmt"
)

// maxSplit is the largest Options.Split.
const maxSplit = 1 << 16

// ErrOptions reports invalid Options.
var ErrOptions = errors.New("invalid options")

// Method is a bound-propagation method.
type Method int

// The methods, from loosest and fastest to tightest.
const (
	// MethodInterval propagates boxes layer by layer (interval arithmetic), and
	// for a pair of networks also the box of their difference.
	MethodInterval Method = iota
	// MethodSymbolic propagates linear bounds in the input with back-substitution
	// (DeepPoly/CROWN style) and, for a pair, linear bounds of the
	// difference (NeuroDiff style); its results are intersected with
	// MethodInterval's, so it is never looser.
	MethodSymbolic
	// MethodOptimised is MethodSymbolic with, per target neuron, the
	// slopes of the free relaxation lines (ReLU, leaky ReLU) of the layers
	// below optimised by projected gradient (alpha-CROWN), layer by layer
	// so that every layer is relaxed on the optimised bounds of its inputs
	// (optimise.go). Each layer's bounds are intersected with
	// MethodSymbolic's on the same bounds below; since tighter bounds below
	// change the relaxations above, a bound is not guaranteed to be inside
	// MethodSymbolic's, but it almost always is, and it is much tighter on
	// deep networks, at a few times the cost (docs/tuning.md).
	MethodOptimised
)

var methodNames = [...]string{"interval", "symbolic", "optimised"}

// String returns the method's name.
func (m Method) String() string {
	if m < 0 || int(m) >= len(methodNames) {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return methodNames[m]
}

// Heuristics are the switches that trade the tightness of Pair's bounds
// against their cost; every combination is sound. Which pays where is in
// docs/tuning.md; package verify turns them on for branch and bound.
type Heuristics struct {
	// UnstableOnly, with MethodSymbolic or MethodOptimised, tightens by
	// back-substitution only the pre-activations, and pre-activation
	// differences, of the neurons whose bounds so far straddle a kink of
	// their activation (every neuron of a layer without kinks); the others
	// keep their interval bounds, on which their relaxations are already
	// exact. It pays on small boxes where most neurons are stable.
	UnstableOnly bool
	// PlainPairs relaxes each ReLU neuron of a pair by the separate lines
	// and planes of its output and its difference (diffrelax.go) in the
	// back-substitution of the difference, not by the per-row planes of
	// the two together over their joint range (relupair.go, relupoly.go).
	// Those are tighter on wide one-shot bounds but cost more CPU in
	// branch and bound.
	PlainPairs bool
	// SecondByDifference, with MethodSymbolic or MethodOptimised, bounds
	// network 2's pre-activations, in the layers where the two networks
	// have equal widths, by interval arithmetic intersected with network
	// 1's bounds plus the difference's (which are back-substituted as
	// usual), without back-substitution or slope optimisation through
	// network 2 itself; with UnstableOnly, network 1's neurons that are
	// stable but whose network-2 copies straddle a kink are
	// back-substituted too (within.go, tightenShadows). For a close copy
	// (float16) that loses little and saves time; not for a pruned copy,
	// whose differences are wide. Pair only.
	SecondByDifference bool
}

// Options configures bound propagation.
type Options struct {
	// Method is the propagation method.
	Method Method
	// Optimise tunes MethodOptimised; its zero value means the defaults.
	Optimise OptimiseSettings
	// Split is the number of pieces the input box is cut into (split.go),
	// each bounded on its own: the bounds returned are the hulls of theirs,
	// intersected with those of the whole box, for Split + 1 times the
	// time. It pays where the input has few dimensions, not on
	// high-dimensional boxes (docs/tuning.md), so the default is 0; 0 and
	// 1 mean no splitting. Pair does not split Independent inputs.
	Split int
	// RequantSlack widens every quantiser of a quantised network (QDQ
	// int8) by this many steps beyond the half step of exact rounding, so
	// the bounds also cover integer kernels that round differently from
	// the ONNX reference (quantised.go). 0 models the reference exactly.
	RequantSlack float64
	// Heuristics choose cheaper or tighter relaxations; all off in
	// DefaultOptions.
	Heuristics
	// Within, if not nil, holds bounds of the same pair of networks valid
	// on a box containing this one (PairBounds.Prior of a parent's, in
	// branch and bound): Pair intersects their pre-activation and
	// difference enclosures in, layer by layer (within.go). Pair only.
	Within *PairBounds
	// Outputs, if not nil, are the only outputs j whose differences
	// f2_j - f1_j the caller needs (the margins it asks of the result
	// weigh these alone): with MethodSymbolic or MethodOptimised the other
	// neurons of the last layer keep their interval bounds, without
	// back-substitution or optimised slopes, and so do their entries of
	// Output and of the networks' last pre-activations. A margin that
	// weighs them is sound but looser. Pair only.
	Outputs []int
	// Goal, if not nil, lets MethodOptimised stop as soon as the goal's
	// margins answer the caller's question (goal.go), and skip the
	// optimisation of the margins where those back-substituted without
	// it do. Ignored with Split > 1. Pair only.
	Goal *Goal
}

// DefaultOptions returns the default options: optimised slopes with the
// default settings, no splitting.
func DefaultOptions() Options {
	return Options{Method: MethodOptimised, Optimise: DefaultOptimiseSettings()}
}

// Validate reports an unknown method or out-of-range optimiser settings.
func (o Options) Validate() error {
	if o.Method < MethodInterval || o.Method > MethodOptimised {
		return fmt.Errorf("bounds: options: unknown method %d: %w", int(o.Method), ErrOptions)
	}
	if it := o.Optimise.Iterations; it < 0 || it > 10000 {
		return fmt.Errorf("bounds: options: Optimise.Iterations = %d, want 0..10000: %w", it, ErrOptions)
	}
	if o.Split < 0 || o.Split > maxSplit {
		return fmt.Errorf("bounds: options: Split = %d, want 0..%d: %w", o.Split, maxSplit, ErrOptions)
	}
	if sl := o.RequantSlack; !(sl >= 0 && sl <= 1<<20) {
		return fmt.Errorf("bounds: options: RequantSlack = %v, want 0..2^20: %w", sl, ErrOptions)
	}
	if st := o.Optimise.Step; !(st >= 0 && st <= 10) {
		return fmt.Errorf("bounds: options: Optimise.Step = %v, want 0..10: %w", st, ErrOptions)
	}
	return nil
}

// optimiser returns the settings of the slope optimisation, or nil when the
// method does not optimise.
func (o Options) optimiser() *OptimiseSettings {
	if o.Method != MethodOptimised {
		return nil
	}
	s := o.Optimise.orDefault()
	return &s
}

// OptimiseSettings tunes the slope optimisation of MethodOptimised.
//
// The zero value means the defaults (DefaultOptimiseSettings).
type OptimiseSettings struct {
	// Iterations is the number of projected gradient steps per layer.
	Iterations int
	// Step is Adam's step size on the slopes (which lie in ranges of
	// width 1 for ReLU).
	Step float64
	// Differences also optimises, for every neuron of the pair's
	// pre-activation differences, network 1's slopes in the joint
	// back-substitution (the margin of PairBounds.Margin always is). It
	// about triples the time of Pair; measured gains: 8-11% narrower
	// output differences on random deep ReLU networks, under 1% on ACAS Xu.
	Differences bool
}

// DefaultOptimiseSettings returns the defaults, chosen by measurement on
// the ACAS Xu benchmark (docs/tuning.md).
func DefaultOptimiseSettings() OptimiseSettings {
	return OptimiseSettings{Iterations: 20, Step: 0.2}
}

// orDefault returns s with zero fields replaced by their defaults.
func (s OptimiseSettings) orDefault() OptimiseSettings {
	d := DefaultOptimiseSettings()
	if s.Iterations == 0 {
		s.Iterations = d.Iterations
	}
	if s.Step == 0 {
		s.Step = d.Step
	}
	return s
}
