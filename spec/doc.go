// Package spec states the question every other package answers: over which
// input pairs, and measured how, is the output error of two networks
// bounded.
//
// # The input set
//
// Inputs is a set of pairs (x1, x2): x1 ranges over the axis-aligned Box
//
//	B = {x : Lo <= x <= Hi},
//
// and x2 is related to x1 by the Pairing:
//
//	SameInput       x2 = x1                    (pruned, float16, weights-only copies)
//	QuantisedInput  x2 = q(x1) elementwise     (q = Inputs.Quant, a fixed-point quantiser)
//	Independent     x2 anywhere in B           (the paper's similarity problem)
//
// # The quantity
//
// Quantity says what is bounded of the output difference d = f1(x1) - f2(x2):
//
//	||d||_2          Norm2 (the paper's)
//	max_j |d_j|      NormInf
//	|c^T d|          when C is set (one output, or a margin between outputs)
//
// and Quantity.Measure computes it in float64 for a pair of outputs. A
// certificate bounds
//
//	sup { Measure(f1(x1), f2(x2)) : (x1, x2) in Inputs },
//
// and the observed error is the largest Measure found at actual inputs.
//
// # The tolerance
//
// Tolerance is the question of verification: a norm with its epsilons,
// one per output for PerOutput (the VNN-LIB form). Tolerance.Judge is the
// one comparison of a difference, enclosed with directed rounding, with
// the epsilons; every check of a counterexample (verify.CheckPoint and
// those built on it) calls it, so that a float64 difference past eps
// alone never makes a violation.
//
// spec imports nothing of nnbound's but quantise and internal/outward;
// the packages that propagate bounds (bounds), build constraints (qc),
// certify (certify), verify (verify), search for errors (search) and read
// input sets (vnnlib) share its types.
package spec
