// Package bounds computes sound enclosures of what feed-forward networks do
// on an input set: pre-activation and output bounds of each layer of one
// network, and of the differences between the layers of two networks fed
// related inputs (a model and its quantised, float16 or pruned copy).
//
// # Entry points
//
//	Single(f, box, opts)        -> *Net         bounds of one network on a box
//	Pair(f1, f2, in, opts)      -> *PairBounds  both networks and their differences
//	(*PairBounds).Margin(c)     -> Interval     c^T (f2(x2) - f1(x1))
//	(*PairBounds).Margins(cs)   -> []Interval   Margin of each c, back-substituted together
//	(*PairBounds).Norm2()       -> float64      ||f2(x2) - f1(x1)||_2 (largest over the pieces)
//	NewForwardDiff(f, g)        -> *ForwardDiff a reusable workspace for
//	(*ForwardDiff).Bound(box)   -> []Interval   g(x) - f(x), forward only
//	GraphSingle(g, box, opts)   -> *GraphNet    every value of an nn.Graph on a box
//	GraphPair(g1, g2, in, opts) -> *GraphPairBounds  g2(x2) - g1(x1) for two graphs
//	GraphSingleContext, GraphPairContext             the same, stopped by a context
//
// The graph entry points (graph.go) take any DAG of nn.Graph's operations
// (convolutions, pools, residual joins, concatenations, max pools,
// quantisers) and bound it by interval arithmetic and back-substitution in
// batches of rows, without a dense matrix of any structured map; two
// graphs of one structure are bounded through their differences node by
// node (graphdiff.go). The chain entry points above remain the tuned
// engine for nn.Network.
//
// The input set is a spec.Inputs (package spec states the question): x2 =
// x1 (spec.SameInput), x2 = q(x1) for an input quantiser q
// (spec.QuantisedInput), or x1, x2 independent in the box
// (spec.Independent).
//
// # Methods
//
// MethodInterval is interval arithmetic, layer by layer; for a pair it also
// propagates the difference interval through
//
//	xi2 - xi1 = W2 (x2 - x1) + (W2 - W1) x1 + (b2 - b1)
//
// and the activations by the mean value theorem and, for tanh and sigmoid,
// exactly on the box of (xi1, xi2 - xi1) (the monotone chord,
// smoothdiff.go). MethodSymbolic adds CROWN/DeepPoly-style
// back-substitution: each pre-activation is bounded by a linear form in the
// outputs of every layer below it in turn, through linear relaxations of
// the activations, down to the input; and, NeuroDiff's idea with full
// back-substitution, the difference of two equal-width networks is bounded
// through the joint variables (z1, delta) = (phi1(xi1), phi2(xi2) -
// phi1(xi1)) of every layer with planes in (xi1, xi2 - xi1)
// (diffrelax.go), where a neuron is a ReLU in both networks, each row of the
// back-substitution replaces its z1 and delta together by one plane with
// the offset of their combination (relupair.go), taken at the first layer of
// a pair with the same input over the joint range of (xi1, xi2 - xi1)
// rather than its box (relupoly.go); the difference of tanh and sigmoid neurons is also
// bounded slice by slice of xi1's range, with xi2 - xi1 bounded on each
// slice by that back-substitution (slicediff.go). Every symbolic bound is
// intersected with the interval one, so it is never looser.
// MethodOptimised (the default) then optimises, per target neuron, the slopes of the free relaxation
// lines of the ReLUs below it (alpha-CROWN, optimise.go): a projected
// gradient method in plain float64 chooses slopes, and the rigorous
// back-substitution recomputes the bound with them. Options.Split bounds
// the box as the union of pieces (split.go).
//
// ForwardDiff is the cheap first stage of a branch and bound over the box
// (forward.go): affine forms in the input and in noise symbols shared by
// both ReLU networks and their difference, one symbol per relaxed ReLU,
// with no back-substitution, and no allocation per box. On the tests'
// random pairs and small boxes it is within 1.3 times MethodSymbolic's
// width (median about 1); on ACAS Xu property boxes it is 2-50 times
// tighter than NeuroDiff's first pass and far looser than MethodSymbolic,
// at a third to a tenth of its time.
//
// Supported activations: identity, ReLU, leaky ReLU, tanh, sigmoid, ELU and
// hard-tanh, with any parameters nn.Activation.Validate accepts.
//
// Quantised networks (nn.Quantiser: int8 models in QDQ form) are lowered to
// plain ones whose layers add a bounded perturbation to their
// pre-activations and clamp (quantised.go): q(v) = clamp(v + e, a, b) with
// |e| <= s/2, exactly. Their Net and PairBounds layers are those of the
// lowered networks (an input quantiser adds a first layer, an output
// quantiser that is not the identity a layer after its own). Per-tensor
// activation quantisers before identity, ReLU and hard-tanh are modelled;
// others are refused with an error wrapping nn.ErrQuantised.
//
// # Soundness
//
// The bounds enclose the exact real values of the networks (whose weights
// are the given float64 numbers), not only their float64 evaluations.
// Relaxation slopes are chosen by heuristics or by the optimiser, but each
// offset is a rigorous extremum of phi(z) - lambda z (gap.go) or, for the
// optimised lines through the origin, exactly 0 for any slope in the
// range the line is sound for, to which every slope is clamped (slopes.go);
// no bound depends on the optimiser converging. Every float64 operation that
// produces a bound carries a margin dominating its rounding error (package
// internal/outward, backsub.go), followed by one ulp of outward rounding.
//
// Sub-package boundstest provides random networks of every activation,
// float16 copies, evaluation traces and the ACAS Xu benchmark instances for
// the tests of this and dependent packages.
package bounds
