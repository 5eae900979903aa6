// Package sdp solves block-diagonal semidefinite programs in the SDPA form
//
//	(P)  minimise    c^T x
//	     subject to  X = sum_i F_i x_i - F_0  is positive semidefinite
//	(D)  maximise    F_0 • Y
//	     subject to  F_i • Y = c_i (i = 1..m),  Y positive semidefinite
//
// where every F_i is block diagonal with the same block structure. A block
// is either a dense symmetric PSD block or a diagonal block (an LP cone:
// each diagonal entry non-negative). Constraint matrices are given as
// sparse entries and, optionally, as rank-one terms d u u^T (Factor) with
// sparse u, which the solver exploits. Apart from the dense kernels of
// internal/dense this package imports nothing of nnbound's, and it knows
// nothing of networks.
//
// # Method
//
// Solve runs an infeasible primal-dual interior-point method with the
// HKM search direction (Helmberg, Rendl, Vanderbei and Wolkowicz; Kojima,
// Shindoh and Hara; Monteiro) and Mehrotra's predictor-corrector, from the
// starting point of CSDP (Borchers 1999), or from a dual matrix of the
// caller's scale (Settings.DualStart). Each iteration assembles and
// factors the Schur complement
//
//	B_ij = sum over blocks of Tr(F_i X^{-1} F_j Y)
//
// once; the predictor and the corrector both use that factorisation. Per
// block and per constraint the assembly chooses by cost among the formulas
// F1, F2 and F3 of Fujisawa, Kojima and Nakata (1997); rank-one terms go
// through batched sparse products or Gram matrices of the factors
// (schurlr.go), unless writing them out as entries costs little, which is
// the more robust form on ill-conditioned problems. When a block has a
// Basis, a dictionary W = [I E] in which every factor is a few
// coefficients (Factor.Coef), and the cost model says it pays, all of this
// runs on the lifted block of order n + e with W^T X^{-1} W and W^T Y W
// (lift.go): the Schur pairs are then pairs of factors with a few
// non-zeros each rather than Gram matrices of all the dense factors. The
// primal
// residual stays along one fixed direction R0, so its term in the
// right-hand side is one more row of the same assembly. Step lengths come
// from Lanczos estimates of the smallest eigenvalue of L^{-1} dX L^{-T},
// checked by the Cholesky factorisation of the new iterate. All dense
// linear algebra goes through internal/dense.
//
// Near the end of ill-posed problems (no interior on the dual side:
// SDPLIB's hinf, qap, control) the primal-dual iterates stall against the
// boundary. The solve then finishes with primal barrier Newton steps from
// an earlier primal-feasible iterate (polish.go), whose dual estimates
// satisfy F(Y) = c by construction, and finally tries projecting its best
// Y onto F(Y) = c (project.go). If even that leaves the best pair short of
// near-optimal, Y is projected onto F(Y) = c and F_0 • Y = c^T x together:
// with x as large as on hinf15 (|x| ~ 1e7) a dual residual at rounding
// level is what keeps the gap open. The gap is then zero by construction,
// so such a pair is reported NearOptimal at best, and only when the check
// finds X and Y semidefinite within its tolerances.
//
// Before the iterations, Solve removes what has no interior and can be
// seen from the sparsity and sign pattern alone (presolve.go): entries of
// 1e-30 of the largest, rows of PSD blocks that no constraint touches,
// LP coordinates forced to zero by a constraint F_i • Y = 0 with entries
// of one sign, and empty constraints with c_i = 0. The result is mapped
// back to the problem as given (zero rows and coordinates in Y, the
// removed x_i chosen feasible) and its dual residual recomputed there.
// When the reduced problem ends in numerical trouble, the problem as
// given is solved too.
//
// # Statuses and the independent check
//
// How a solve ends is Result.Status; Solve's error is only for an
// ill-formed problem (ErrDimension, ErrNotFinite) or invalid settings
// (ErrSettings). Optimal, NearOptimal, PrimalInfeasible and
// DualInfeasible are reported only when a check recomputed from the
// returned x and Y passes: the smallest eigenvalue of sum F_i x_i - F_0
// and of Y (by Cholesky factorisations of shifted matrices), the residuals
// F_i • Y - c_i and the gap, each against its tolerance, or 1000 times it
// for NearOptimal. Package sdptest repeats that check with independent
// code for tests.
//
// The workspace is allocated once per solve; the iterations allocate
// nothing of their own.
package sdp
