// Package certify proves upper bounds on how far two feed-forward networks
// can drift apart on an input set, by the SDP of Theorem 1 of Li, Drummond
// and Duncan, "Robust error bounds for quantised and pruned neural
// networks" (L4DC 2021). It is the only package joining qc (the quadratic
// constraints) and sdp (the solver).
//
// Bound finds gammas with
//
//	||f1(x1) - f2(x2)||^2 <= gamma + gamma_x1 ||x1||^2 + gamma_x2 ||x2||^2 + gamma_x ||x1 - x2||^2
//
// for every input pair of the set (x1 in a box, x2 independent, equal, or
// the quantised x1), from the LMI
//
//	sum_o (d_o^T eta)^2 - sum_g gamma_g (eta^T G_g eta) + sum_k lambda_k eta^T M_k eta  <= 0
//
// over eta = [x1; x2; phi(xi1); phi(xi2); 1], where d_o is output o of
// f1 - f2, G_g the gamma groups and M_k the quadratic constraints with
// multipliers lambda_k (>= 0, or free for equalities). The certified bound
// is sqrt of the largest right-hand side over the set, rounded up, next to
// the largest error package search finds at actual inputs (on the whole
// set, and on each piece of a split set).
//
// Soundness does not rest on the solver. After each solve the multipliers
// are projected onto their signs, the LMI matrix is rebuilt from the
// networks in float64 with an entrywise bound on its rounding error, its
// largest eigenvalue is bounded rigorously (a shifted Cholesky with
// Demmel's backward-error bound, after scaling by powers of two), and a
// positive residual t is absorbed into gamma as t * sum_c (r_c/s_c)^2 with
// r_c >= max |eta_c| from interval bounds. A solve that does not end
// optimal or near-optimal never yields a bound (Status says why).
//
// Two QC sets: QCPaper is exactly the authors' (every pair of neurons
// slope-restricted, O(N^2) multipliers); QCDefault uses pre-activation
// bounds of both networks and of their difference (package bounds; by
// default optimised slopes on 16 pieces of the box: Options.Bounds and
// Split), eliminates stable neurons from eta (and inputs whose box has zero
// width), adds local constraints for the unstable ones (DefaultKinds:
// about six multipliers per unstable neuron), and splits the input set
// (branch and bound over quantisation cells and halves of the box), an
// anytime loop, until the bound is within Refine.TargetRatio of the
// observed error, splitting no longer pays (Refine.MinGain, a rule on
// pieces, not time), the cap of pieces or the budget is reached
// (Certificate.Stopped says which). The bound of a split set is the largest over its
// pieces; the gammas are those of the root SDP. The output enclosure of
// bound propagation is a bound too: every piece keeps the smaller of the
// two, or the enclosure alone when its SDP fails; Certificate.Source says
// which one the bound is, Fallbacks how many SDPs failed, and Quantity
// what is bounded. With the same input to both networks and no cap of
// pieces, a cheap refinement comes first (cheap.go): pieces bounded by
// bound propagation alone, each from its parent's enclosures, halving the
// coordinate of largest difference smear, while that pays and within
// Refine.MaxPropWork; the SDP then runs only where it can still pay (on a
// small box settled past the target, on the hulls of the top pieces:
// settleSDP), and the smaller of the two bounds is reported.
//
// What makes the SDPs of large networks solvable (ACAS Xu, 6 x 50 ReLU):
// the coordinates of the second network's neurons hold their differences
// to the first network's (qc.Config.DiffCoords), so that a float16 copy's
// tiny difference is not the cancellation of two coordinates; every
// coordinate and every term is scaled to unit size by powers of two, and
// the objective by a power of two near the squared interval bound; terms
// with the same matrix are merged and terms true for every eta dropped.
//
// Quantised networks (int8 models in QDQ form) are bounded by bound
// propagation on every piece of the same branch and bound and, for the
// 2-norm of two or more outputs on the same input, on the whole input set
// by the SDP too, with a coordinate of eta and the constraint
// (s/2 - e)(e + s/2) >= 0 for every rounding e of a quantiser, and each
// clamp that may act as an excess coordinate or a hard-tanh (int8.go,
// qc.LowerInt8; Certificate.Note lists them), tightened by rounds of
// cuts, products of linear facts the last solve violated (cuts.go); for
// other quantities no
// SDP is built (Note says so). On the same input, a
// piece where the int8 network's input quantiser takes at most 4096
// combinations of values is bounded case by case over the cells of its
// grid (inputcases.go), and
// the 2-norm of two or more outputs by margins in 8 directions per pair
// of outputs (bounds.PairBounds.Norm2Planar).
//
// The question is passed as values (package spec): the input set
// spec.Inputs and the quantity spec.Quantity, which besides the 2-norm may
// be a per-output or weighted bound |c^T (f1 - f2)| (C) or the inf-norm
// (one SDP per output, or with Options.InfJoint one SDP with a block per
// output). Options holds the method only: MethodSDP or MethodPropagation
// (bound propagation alone), the QC set, weights, splitting, the error
// search's samples, the solver with its one replacement hook Options.Solve,
// and logging. Problem gives the root SDP for other solvers. Every rounded
// bound is moved outward with internal/outward.
//
//	Bound(ctx, f1, f2, in spec.Inputs, q spec.Quantity, opts Options) (*Certificate, error)
//	Problem(f1, f2, in spec.Inputs, q spec.Quantity, opts Options) (*sdp.Problem, error)
package certify
