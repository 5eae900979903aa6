// Package verify decides epsilon-equivalence of a network f and its
// compressed copy g on an input box: is
//
//	|g_k(x) - f_k(x)| < eps_k  for every output k   (or ||g(x) - f(x)|| < eps)
//
// for every x in the box — yes (Holds, proved), no (Violated, with an input
// where it fails) or Unknown (the node limit, the deadline or a
// cancellation came first)?
//
// # Method
//
// Decide runs branch and bound over the input box. Each node is a box:
//
//  1. bounded: with Options.Forward, first by forward propagation
//     (bounds.ForwardDiff, when x2 = x and the networks are ReLU chains);
//     if that leaves an output open, by bounds.Pair with the difference
//     network, cheapest method first — interval, then symbolic
//     back-substitution with PairBounds.Margin per output, then optimised
//     slopes if the bound is within Options.OptimiseRatio of eps
//     (node.go). Outputs proved on a box are dropped from its subtree; a
//     box with none left is closed.
//
//  2. attacked, if still open (the root is attacked before it is
//     bounded): sign-gradient ascent on the difference from the parent's
//     worst point, the centre and a few random points (attack.go), or,
//     where the parent's attack found under Options.AttackRatio of eps,
//     lightly: from the first two only, with a quarter of the steps. An
//     input whose difference exceeds eps is checked again by CheckPoint
//     (check.go), sharing no code with the attack: the exact difference
//     there is enclosed with directed rounding, and the input is reported
//     as Violated only when the whole enclosure is past eps; otherwise
//     the search goes on.
//
//  3. split in two along the coordinate of largest share of the
//     difference's relaxation widths where f or g straddles 0
//     (Options.Split = SplitDifference, the default; smear.Difference) or of
//     largest smear (smear.Interval)
//
//     width_i * sum max |[d y_k / d x_i]|,
//
//     the enclosure of the derivative over the box from the node's
//     pre-activation bounds, summed over both networks and the open
//     outputs, as ReluVal and NeuroDiff split (Options.Split =
//     SplitInterval); or, with SplitGradient, of largest
//
//     width_i * (|dr/dx_i|(worst point) + |dr/dx_i|(centre)),
//
//     r the difference in units of eps at the attack's points.
//
// Nodes are taken from a queue — first those whose parent's attack came
// within Options.SuspectRatio of eps (to find violations early), then best
// first (largest bound in units of eps), ties to the older node — in
// batches of Options.Batch, bounded on
// Options.Workers goroutines, and merged in batch order: the verdict, the
// bound and the node count depend on the batch size and the seed, never on
// the scheduling; only a deadline or a cancellation makes them depend on
// time, and then the status says so.
//
// # Soundness
//
// Violated is returned only with an input where the exact difference of
// the real-valued networks violates the tolerance (CheckPoint), not one
// where float64 rounding alone puts it past eps.
//
// Holds is returned only when every leaf of the tree, which together cover
// the box, has a bound strictly below eps for every output left open on
// it. The bounds of package bounds hold for the exact real-valued networks,
// with float64 rounding accounted for; the 2-norm of per-output bounds is
// rounded up. Result.Bound is a certified bound of the difference over the
// box whatever the status (+Inf on boxes never bounded).
//
// # Two-network properties
//
// DecideProperty decides a two-network property (spec.Property, read from
// a VNN-LIB 2.0 file by package vnnlib) whose outputs
// are bounded on both sides, Lo_k <= g_k - f_k <= Hi_k: an asymmetric
// range becomes |g_k - c_k - f_k| < r_k about its centre, with r_k rounded
// inwards and the rounding of g's shifted bias taken off it, and a
// counterexample is kept only if the property as read is violated there.
//
// # Top-1 agreement
//
// DecideTop1 decides a weaker question, the one a classifier's user asks:
// does g pick f's class at every input of the box,
//
//	argmax_k g_k(x) = argmax_k f_k(x)   for every x,
//
// a tie in either counting as a disagreement? On each box of its branch
// and bound it bounds the margins f_c - f_j and g_c - g_j, c f's class at
// the box's centre, each back-substituted through its own network; the
// box is settled when every lower bound is positive. A disagreement is
// reported only where CheckTop1's enclosures of both networks' outputs
// prove it. Its tree, like Decide's, does not depend on the scheduling.
package verify
