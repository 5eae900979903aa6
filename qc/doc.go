// Package qc builds the quadratic constraints (QCs) of Li, Drummond and
// Duncan, "Robust error bounds for quantised and pruned neural networks"
// (L4DC 2021), over the stacked vector
//
//	eta = [x1; x2; phi(xi1); phi(xi2); 1]
//
// of the inputs of two networks, the outputs of their activation neurons and
// a constant coordinate. A Layout maps these pieces to coordinates of eta;
// pieces that are affine in the others need no coordinate: with the same
// input x2 = x1, a fixed input (of x1 or x2) is a constant, and a neuron
// whose activation is affine on its pre-activation range (a stable ReLU)
// is that affine map of its pre-activation. With Config.DiffCoords the
// coordinate of a neuron of the second network holds its difference to
// the corresponding neuron of the first. Every quantity of the networks — each
// input, pre-activation xi, activation phi(xi) and output — is then an affine
// form of eta (a Form).
//
// A quadratic constraint is a product of two affine forms that is
// non-negative (or zero) at every eta the networks can produce:
//
//	(a^T eta) (b^T eta) >= 0,   i.e.   eta^T M eta >= 0,   M = (a b^T + b a^T)/2.
//
// Linear constraints g^T eta >= 0 are products with the constant
// coordinate. Each Term carries one such product, the Kind of constraint it
// is, and the sign of the multiplier the S-procedure gives it (NonNeg for an
// inequality, Free for an equality). A certificate (package certify) searches
// for multipliers lambda_k and gammas with
//
//	Phi0(gamma) + sum_k lambda_k M_k <= 0   (negative semidefinite),
//
// which proves eta^T Phi0 eta <= 0 at every feasible eta (Theorem 1 of the
// paper). This package builds the terms and evaluates them; it solves
// nothing.
//
// The builders follow the paper's appendices: InputBox and JointInput
// (Appendix 3), QuantisedInput (Appendix 5, Lemma 3), and the activation
// constraints of Lemma 2 chosen from each activation's properties
// (Appendix 4, see PropertiesOf): Sector, Bounded, Positive, Complement,
// Complementarity, Cross, SlopePairs (the paper's all-pairs slope
// restriction). Local builders use pre-activation bounds: PreBox, PostBox,
// ReLUTriangle; DiffSlope and DiffChords relate corresponding neurons of
// the two networks (the same activation), DiffBox any two of the same
// place. For int8 models, LowerInt8 turns the
// lowerings of bound propagation into a Config with a noise coordinate per
// rounding (Noise: |e| <= s/2) and an excess coordinate per clamp that may
// act (Saturation). Facts lists the linear facts of a region (sides of
// boxes, ReLUs, triangles, clamps) whose pairwise products (Product) a
// solver's caller adds where its relaxation violates them. A KindSet
// selects families of terms.
//
// Floating point: the coefficients of a Form are computed in float64 from
// the network weights; each Form carries a radius per coefficient that
// bounds the rounding error of that coefficient, so that a verifier can
// bound the error of the matrices it assembles (Matrix.AddTerm).
package qc
