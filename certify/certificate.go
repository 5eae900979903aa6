package certify

import (
	"fmt"
	"time"

	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/spec"
)

// Status tells whether and why a bound was or was not certified.
type Status int

// The statuses.
const (
	// Certified: the SDP was solved and the independent check proved the
	// LMI (after absorbing its residual into gamma, see Certificate.Margin).
	Certified Status = iota
	// SolverFailed: the SDP solver did not reach an optimal or near-optimal
	// point (Certificate.SDP.Status says how it ended); no bound is claimed.
	SolverFailed
	// CheckFailed: the check could not bound the LMI's largest eigenvalue
	// (non-finite multipliers or matrix); no bound is claimed.
	CheckFailed
	// Cancelled: the context was cancelled before a bound was certified.
	Cancelled
)

var statusNames = [...]string{"certified", "solver_failed", "check_failed", "cancelled"}

// String returns the status in snake case, as printed in JSON.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// SDPStats describes the SDPs solved.
type SDPStats struct {
	// Size is the order of the LMI and Variables the number of scalar
	// variables (gammas and multipliers) of the root SDP.
	Size, Variables int
	// Solves counts the boundings of the refinement, not SDPs: the root
	// counts 1 (and 1 for each round of cuts), even when its SDP was
	// skipped or never ran, and every piece bounded after it 1, by its
	// SDP or by bound propagation alone (Iterations tells whether any SDP
	// ran). The refinement's gain rule (gainRule) checks its progress at
	// each doubling of this count; Certificate.Bounded counts the pieces
	// alone.
	Solves int
	// Iterations and Time add up over all solves.
	Iterations int
	Time       time.Duration
	// Status is the solver status of the root SDP, and Objective its
	// primal objective.
	Status    sdp.Status
	Objective float64
}

// Piece is one part of a split input set and its certified bound.
type Piece struct {
	// Lo1, Hi1 is the box of x1; Lo2, Hi2 the box of x2 (equal to the x1
	// box for SameInput, the quantised box for QuantisedInput).
	Lo1, Hi1, Lo2, Hi2 []float64
	// Bound is the certified bound of ||f1 - f2|| on the piece.
	Bound float64
}

// Certificate is the result of Bound: the question asked (Inputs, Norm
// and C, and the options that shape the answer: Method, Arith, QC), how
// it ended (Status), the bound and the error observed, and where the bound
// came from. It describes itself: printing it needs nothing else.
type Certificate struct {
	// Inputs is the input set the bound holds over, as passed to Bound.
	Inputs spec.Inputs
	// QC is the QC set of the LMI (Options.QC).
	QC QCSet
	// Status says whether a bound was certified (Certified) and, if not,
	// why.
	Status Status
	// Reason explains a status other than Certified ("" when certified).
	Reason string
	// Note remarks on a certified bound: where it came from when an SDP
	// failed or was not used, its raise to the observed error, a
	// refinement cut short ("" when there is nothing to say, and when not
	// certified).
	Note string
	// Gammas are the verified coefficients of the root SDP: for every
	// input pair in the set,
	//
	//	||f1(x1) - f2(x2)||^2 <= Gamma + GammaX1 ||x1||^2 + GammaX2 ||x2||^2 + GammaX ||x1 - x2||^2.
	//
	// The left-hand side is the square of Quantity for the 2-norm and for
	// C; for the inf-norm the gammas are those of the output k with the
	// largest bound, with |f1_k(x1) - f2_k(x2)|^2 on the left. Gamma
	// includes the absorbed Margin. When the root SDP failed and
	// the bound comes from the pieces of the split input set, they are
	// (Bound^2, 0, 0, 0).
	Gammas
	// Margin is what the check added to the solver's gamma to cover the
	// LMI's residual and all rounding (>= 0).
	Margin float64
	// RootBound is sqrt of the largest value over the input set of the
	// right-hand side above.
	RootBound float64
	// Bound is the certified upper bound on ||f1(x1) - f2(x2)||_2 over the
	// input set: RootBound, or the largest bound over the pieces when
	// refinement split the input set and did better. It bounds the exact
	// networks; when their float64 evaluation, which rounding can put
	// above a tight exact bound, exceeds it by at most RoundingTolerance,
	// it is raised to ObservedError and Note says by how much (beyond
	// that, the certificate fails with CheckFailed).
	Bound float64
	// ObservedError is the largest ||f1(x1) - f2(x2)||_2 found at actual
	// input pairs, at X1, X2.
	ObservedError float64
	X1, X2        []float64
	// ObservedExact reports that ObservedError is the exact largest error
	// (one input, piecewise-linear networks: search.MaxError enumerated the
	// breakpoints).
	ObservedExact bool
	// Quantity is what Bound and ObservedError measure, as passed to
	// Bound: |C^T (f1(x1) - f2(x2))| when its C is not nil, else
	// ||f1(x1) - f2(x2)|| in its Norm; its String names it.
	Quantity spec.Quantity
	// Method is the method asked for (Options.Method).
	Method Method
	// Arith is the arithmetic of the networks' evaluation that Bound
	// covers (Options.Arith).
	Arith Arith
	// Source is the method whose bound is Bound: MethodSDP, or
	// MethodPropagation when the output enclosure of bound propagation was
	// smaller than the SDP's bound, the SDP failed, or Method is
	// MethodPropagation (with input splitting: of the piece whose bound is
	// the largest).
	Source Method
	// Fallbacks counts the pieces (the root when the input set was not
	// split) whose SDP failed and whose bound is bound propagation's output
	// enclosure in its place, added up over the outputs for the inf-norm;
	// Note then says so. Source tells whether
	// the largest bound is such an enclosure, Fallbacks why.
	Fallbacks int
	// TimeBudgetHit reports that Options.Refine.TimeBudget ran out, which
	// stopped the splitting or an SDP (its piece then has the bound of
	// bound propagation): the bound holds, but
	// it depends on the machine's speed, and a larger budget (or none) may
	// find a smaller one.
	TimeBudgetHit bool
	// Stopped says why the refinement of the input set ended (StopNone
	// when there was none).
	Stopped Stop
	// SDPGammas are the root SDP's own checked gammas, in the same
	// inequality as Gammas (Gamma includes the check's margin), whenever
	// that SDP solved and passed the check (SDPBound is then finite), and
	// zero otherwise. They equal Gammas unless bound propagation gave
	// Bound: Gammas are then the enclosure's (Bound^2, 0, 0, 0), smaller
	// over the whole input set, but the SDP's right-hand side can still
	// be the smaller at a given input pair. For the inf-norm they are
	// those of the output whose bound is the largest (with
	// Options.InfJoint, only when every output's block passed the check).
	SDPGammas Gammas
	// SDPBound and IntervalBound are the two bounds of the root input set
	// (before any splitting): the SDP's own (+Inf when its solve or check
	// failed, or Method is MethodPropagation) and the output enclosure's.
	// For the inf-norm of chains, the largest over the outputs: the SDP's
	// over those certified on their own, +Inf if the budget or a signal
	// left an output above it with only the first pass's enclosure.
	SDPBound, IntervalBound float64
	// Outputs are the bounds per output for the inf-norm (nil otherwise).
	Outputs []float64
	// Trivial is the bound the ranges of the output activations give
	// alone (2 sqrt(2) for two tanh outputs; +Inf when an output is
	// unbounded); see IsTrivial.
	Trivial float64
	// Pieces are the pieces of a refined certificate (nil if not split).
	Pieces []Piece
	// Bounded counts the pieces bounded: the whole input set, each half
	// of every split and each piece bounded again by its cases (a piece
	// split is counted, its halves too); Refine.MaxPieces caps it, on
	// chains and graphs alike. For the inf-norm of chains, certified
	// output by output, it sums the counts of the outputs certified on
	// their own (the largest bound first, infBound) and the first pass
	// over the whole set (which output 0 starts from) once, and
	// MaxPieces caps each output's.
	Bounded int
	SDP     SDPStats
	// SDPSkipped says why the SDP of the whole input set was not
	// attempted (SkipNone when it was): the networks are graphs, a layer
	// is not modelled, its LMI or its number of variables was too large
	// for the time budget (MaxBudgetOrder, MaxBudgetVariables), bound
	// propagation was already close enough, the time budget or a signal
	// came first (for the inf-norm of chains, before the SDP of the
	// output with the largest bound), the cheap refinement's pieces spent
	// the work budget, or it does not model the int8 quantisers for the
	// quantity. The bound is then bound propagation's.
	SDPSkipped SDPSkip
	// Time is the wall time of Bound.
	Time time.Duration
	// Timing says where Time went.
	Timing Timing
}

// Certified reports whether a bound was certified: Status is Certified.
func (c *Certificate) Certified() bool { return c.Status == Certified }

// Measure returns the quantity c bounds (Quantity) at the outputs
// y1 = f1(x1) and y2 = f2(x2) of one input pair, in float64:
//
//	|C^T (y1 - y2)|    when C is not nil,
//	||y1 - y2||_Norm   otherwise,
//
// as Bound measures ObservedError. It panics when y2 or C is shorter
// than y1.
func (c *Certificate) Measure(y1, y2 []float64) float64 {
	return c.Quantity.Measure(y1, y2)
}

// Ratio returns Bound / ObservedError (+Inf when nothing was observed).
func (c *Certificate) Ratio() float64 {
	return c.Bound / c.ObservedError
}
