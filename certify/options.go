package certify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/spec"
)

// ErrOptions reports invalid Options.
var ErrOptions = errors.New("invalid options")

// maxSplit is the largest Options.Split.
const maxSplit = 4096

// MaxSplitInputs is the largest number of input coordinates of positive
// width of a box that Options.Split splits.
const MaxSplitInputs = 8

// splitFor returns the bounds.Options.Split for box (see Options.Split;
// 0 on the pieces of the cheap refinement, which split instead).
func (o *task) splitFor(box spec.Box) int {
	if o.propOnly {
		return 0
	}
	free := 0
	for i := range box.Lo {
		if box.Lo[i] < box.Hi[i] {
			free++
		}
	}
	if free > MaxSplitInputs {
		return 0
	}
	return o.Split
}

// QCSet selects the quadratic constraints of the LMI.
type QCSet int

// The QC sets.
const (
	// QCDefault is nnbound's set: pre-activation bounds of both networks
	// and of their difference, stable neurons eliminated from eta, local
	// constraints for the unstable ones (pre/post boxes, the ReLU triangle
	// and its products, complementarity), and difference constraints
	// between corresponding neurons. The number of multipliers grows
	// linearly with the neurons.
	QCDefault QCSet = iota
	// QCPaper is exactly the authors' set: input box and joint input
	// constraints, |x2 - x1| <= 2^-FB for a quantised input, and for every
	// neuron positivity, positive complement, complementarity (free), the
	// within-network cross terms, and the slope restriction for every pair
	// of neurons within and across the networks, each pair with its own
	// multiplier. Nothing is eliminated and the input is not split.
	QCPaper
)

var qcSetNames = [...]string{"default", "paper"}

// String returns "default" or "paper".
func (s QCSet) String() string {
	if s < 0 || int(s) >= len(qcSetNames) {
		return fmt.Sprintf("QCSet(%d)", int(s))
	}
	return qcSetNames[s]
}

// ParseQCSet returns the QC set named s.
func ParseQCSet(s string) (QCSet, error) {
	for i, n := range qcSetNames {
		if n == s {
			return QCSet(i), nil
		}
	}
	return 0, fmt.Errorf("certify: unknown QC set %q (want default or paper): %w", s, ErrOptions)
}

// WeightMode selects the objective weights of the SDP,
//
//	minimise  w * gamma + w_x1 * gamma_x1 + w_x2 * gamma_x2 + w_x * gamma_x.
type WeightMode int

// The weight modes.
const (
	// WeightsWorstCase (default) weighs each gamma by the largest value
	// over the input set of the quantity it multiplies (1, ||x1||^2,
	// ||x2||^2, ||x1 - x2||^2), so that the objective is the worst-case
	// bound of the paper's inequality (exactly so for a box symmetric about
	// 0, an upper bound otherwise).
	WeightsWorstCase WeightMode = iota
	// WeightsUnit weighs every gamma by 1.
	WeightsUnit
	// WeightsPaper uses the weights of the authors' script: 1e6 on gamma,
	// (0.1 + 2^-2)^2 on gamma_x1, 0.1^2 on gamma_x2, (2^-2)^2 on gamma_x.
	WeightsPaper
	// WeightsCustom uses Options.Weights.
	WeightsCustom
)

var weightModeNames = [...]string{"worst-case", "unit", "paper", "custom"}

// String returns the mode's name.
func (m WeightMode) String() string {
	if m < 0 || int(m) >= len(weightModeNames) {
		return fmt.Sprintf("WeightMode(%d)", int(m))
	}
	return weightModeNames[m]
}

// ParseWeightMode returns the weight mode named s.
func ParseWeightMode(s string) (WeightMode, error) {
	for i, n := range weightModeNames {
		if n == s {
			return WeightMode(i), nil
		}
	}
	return 0, fmt.Errorf("certify: unknown weights %q (want worst-case, unit, paper or custom): %w", s, ErrOptions)
}

// Gammas are the four coefficients of the paper's bound
//
//	||f1(x1) - f2(x2)||^2 <= Gamma + GammaX1 ||x1||^2 + GammaX2 ||x2||^2 + GammaX ||x1 - x2||^2,
//
// or, as objective weights, the weight of each.
type Gammas struct {
	Gamma, GammaX1, GammaX2, GammaX float64
}

// vec returns the gammas in the order Gamma, GammaX1, GammaX2, GammaX.
func (g Gammas) vec() [4]float64 { return [4]float64{g.Gamma, g.GammaX1, g.GammaX2, g.GammaX} }

func gammasOf(v [4]float64) Gammas { return Gammas{v[0], v[1], v[2], v[3]} }

// PaperWeights are the objective weights of the authors' script.
var PaperWeights = Gammas{Gamma: 1e6, GammaX1: (0.1 + 0.25) * (0.1 + 0.25), GammaX2: 0.01, GammaX: 0.0625}

// Refine controls the input splitting (branch and bound) of the default
// QC set, an anytime loop: the first bound is the whole input set's (one
// pass of bound propagation, and its SDP where that can pay); then the
// input set is split into pieces, each certified by its own small SDP or
// by bound propagation, the bound being the largest over the pieces.
// Only pieces whose bound exceeds TargetRatio times the largest error
// observed so far are split again. It stops at the first of: the target
// ratio reached, nothing left to gain (MinGain), the cap of pieces, the
// time budget, or no piece left to split; Certificate.Stopped says which.
type Refine struct {
	// MaxPieces caps the number of pieces bounded, each by its SDP or
	// by bound propagation (Certificate.Bounded: the whole input set,
	// then both halves of every split; each output's for the inf-norm of
	// chains); 0 (the default) sets no cap and refines while it pays, 1
	// disables splitting.
	MaxPieces int
	// TimeBudget bounds the time of Bound (0: no limit): refining
	// stops once it has run out, and an SDP still being built or solved
	// then is dropped, its piece bounded by bound propagation instead
	// (Certificate.TimeBudgetHit and Stopped say so). It applies to every
	// QC set. Default 2 min: a guard against runaway SDPs, not what
	// usually ends a run (TargetRatio and MinGain do).
	TimeBudget time.Duration
	// TargetRatio stops refining once bound / observed error is at most
	// this. Default 1.1.
	TargetRatio float64
	// Enough, if positive, is a bound that is enough: refining stops
	// once the bound is at most Enough (StopEnough), and the SDP of a
	// region whose bound propagation is already at most it is skipped
	// (SkipClose), for a caller that asks whether the bound is at most
	// a target (allocate). Default 0: none.
	Enough float64
	// MinGain is how much the gap bound - observed error must shrink, as
	// a fraction of it, over each doubling of the pieces certified for
	// refining to go on: after doublings that shrink it less (two in a
	// row on a box of at most MaxSplitInputs free coordinates, one on a
	// wider box), refining ends (StopNoGain). The rule counts pieces, not
	// time, so the result does not depend on the machine. Default 0.05.
	MinGain float64
	// MaxSDPWork bounds, when MaxPieces is 0, the work of the pieces
	// bounded by SDPs: iterations times the cube of the variables of each
	// solve (sdpWork) plus an estimate of the piece's bound propagation
	// (propWork), so that a refinement whose pieces cost seconds each
	// (ACAS Xu) stops at once while one of small SDPs goes on. Pieces
	// bounded by propagation alone count against MaxPropWork instead. A
	// split is not started when it would exceed it, taken to cost what
	// the last did (the first: twice the root). Like MinGain it counts
	// work, not time. 0 sets no limit. Default 5e9 (a few seconds of
	// solves; docs/tuning.md).
	MaxSDPWork float64
	// MaxPropWork bounds likewise, when MaxPieces is 0, the work of the
	// pieces bounded by bound propagation alone (the cheap refinement,
	// quantised networks): their propWork, sub-boxes times parameters
	// times hidden neurons times 8. 0 sets no limit. Default 4e10 (a few
	// seconds of propagation; docs/tuning.md); four times that for the
	// cheap refinement of quantised networks (quantisedPropWork).
	MaxPropWork float64
	// SettleWork, if positive, lets the cheap refinement of a box of at
	// most MaxSplitInputs free coordinates go on after the target ratio
	// is reached (and, for a pair of float networks, after MaxPropWork is
	// spent, ending then as StopCostly unless the target is reached),
	// while its pieces are few and cheap: up to settlePieces
	// pieces and this much work of the pieces in all (MaxPropWork's
	// units, in place of MaxPropWork), while the bound is above
	// 1 + (TargetRatio-1)/100 times the error found (the gain rule does
	// not end it: near the error found the gap shrinks slowly, and the
	// SDP pieces this stands in for are tighter still). The ratio is against the error found, which on such a box
	// may be below the largest there is; the pieces settling past it
	// skip their searches (which only serve the ratio). Past the target
	// it ends as StopTarget. Default 1.2e11 (docs/tuning.md).
	SettleWork float64
	// SolveLarge attempts every SDP whatever its size (an explicit
	// request for the SDP): without it, under a time budget, an SDP too
	// large for the budget (MaxBudgetOrder, MaxBudgetVariables) is
	// skipped and bound propagation bounds its piece. The budget still
	// stops a solve that runs out of time.
	SolveLarge bool
}

// Method is how Bound computes its number.
type Method int

// The methods.
const (
	// MethodSDP is the SDP of Theorem 1 (checked independently), or,
	// where that is smaller or the SDP fails, the output enclosure of
	// bound propagation: the tighter of the two (Certificate.Source says
	// which).
	MethodSDP Method = iota
	// MethodPropagation is the difference bound of bound propagation
	// (bounds.Pair with Options.Bounds) alone: fast, looser, no SDP.
	MethodPropagation
)

var methodNames = [...]string{"sdp", "interval"}

// String returns "sdp" or "interval".
func (m Method) String() string {
	if m < 0 || int(m) >= len(methodNames) {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return methodNames[m]
}

// ParseMethod returns the method named s.
func ParseMethod(s string) (Method, error) {
	for i, n := range methodNames {
		if n == s {
			return Method(i), nil
		}
	}
	return 0, fmt.Errorf("certify: unknown method %q (want sdp or interval): %w", s, ErrOptions)
}

// Options configures how Bound answers its question (the input set and the
// quantity, passed to Bound as values): the method, its constraints,
// weights and input splitting, the bounds, the error search, the solver and
// logging. Use DefaultOptions and change what you need.
type Options struct {
	// Method computes the bound: the SDP (default) or bound propagation.
	Method Method
	// InfJoint certifies the inf-norm (spec.NormInf) by one SDP with a block and gammas
	// per output, the blocks sharing the multipliers, instead of one SDP
	// per output (the default).
	// The input set is then not split.
	InfJoint bool
	// QC is the set of quadratic constraints.
	QC QCSet
	// Weights selects the objective weights; Custom holds them for
	// WeightsCustom.
	Weights WeightMode
	Custom  Gammas
	// Bounds is the method of the pre-activation bounds (QCDefault) and
	// of MethodPropagation; Optimise tunes bounds.MethodOptimised (zero:
	// the defaults).
	Bounds   bounds.Method
	Optimise bounds.OptimiseSettings
	// Split cuts the input box of every bound propagation into this many
	// pieces (bounds.Options.Split; 0 or 1: none) when at most
	// MaxSplitInputs of its coordinates have a positive width; a box of
	// more dimensions is not split (halving a few of many coordinates
	// buys nothing, MNIST in bounds' benchmarks). Default 16: the tighter
	// pre-activation bounds make more neurons stable, so the SDPs are
	// smaller and tighter and fewer pieces need refining; on the Table 1
	// and 2 and ACAS Xu instances that is faster as well as tighter
	// (docs/tuning.md).
	Split int
	// RequantSlack widens every re-quantisation of a quantised (QDQ int8)
	// network by this many steps (bounds.Options.RequantSlack), so that the
	// bound also covers integer kernels that round differently from the
	// ONNX reference. Default 0.
	RequantSlack float64
	// Refine controls input splitting (QCDefault only).
	Refine Refine
	// Arith is the arithmetic the bound must cover (default ArithReal;
	// ArithFloat32 with BoundGraph only).
	Arith Arith
	// Samples is the number of random input pairs evaluated for the
	// observed error (besides corners, grids and local search). Default 2000.
	Samples int
	// Seed seeds the sampling of the observed error.
	Seed uint64
	// SearchWork is the work, in multiply-adds of the two networks, that
	// the search for the observed error on the whole input set may spend
	// beyond its floor of evaluations (searchEvals); a search after a
	// solved root SDP spends sdpSearchFactor times as much, one on a piece
	// of the refinement a quarter. Default 4e8, a fraction of a second,
	// so that the first bound and the first ratio come at once; 0 means
	// the default. Tests lower it: on small networks the search is most of
	// the time of a certificate.
	SearchWork float64
	// Solver holds the SDP solver settings; its Log, when set, receives the
	// iteration log of every solve.
	Solver sdp.Settings
	// Log, when not nil, receives one line per certified piece.
	Log io.Writer
	// Progress, when not nil, is called from Bound's goroutine after the
	// first bound and after every round of the refinement.
	Progress func(Progress)
	// Solve, when not nil, replaces sdp.Solve (to compare solvers on the
	// same SDPs; the check of every solution is the same). It is the one
	// way to swap the solver. Refinement calls it from several goroutines
	// at once (refine), so it must be safe for concurrent use.
	Solve func(ctx context.Context, p *sdp.Problem, s *sdp.Settings) (*sdp.Result, error)
	// Kinds are the kinds of terms the default QC set may use (0 means
	// DefaultKinds); the paper set ignores it. It is there to measure what
	// each family of constraints buys.
	Kinds qc.KindSet
}

// DefaultKinds returns the kinds of terms of the default QC set: the input
// constraints, the properties of each activation (for ReLU: positivity,
// positive complement, complementarity), the products of the ReLU
// triangle with phi and phi - xi, and for corresponding neurons of the two
// networks the slope restriction and the box of their output difference;
// for quantised networks the roundings and saturations of their
// quantisers (without KindNoise no SDP is built for them).
//
// Left out because they bought nothing on the ACAS Xu and Table 1/2
// instances: the
// pre- and post-activation boxes and the linear triangle (implied through
// the complementarity equality), the box of the pre-activation difference,
// and the chords of the difference's slope restriction.
func DefaultKinds() qc.KindSet {
	return qc.Kinds(qc.KindInputBox, qc.KindJointSum, qc.KindJointDiff, qc.KindQuantDiff, qc.KindQuantLinear,
		qc.KindQuantSector, qc.KindSector, qc.KindPositive, qc.KindComplement, qc.KindComplementarity,
		qc.KindBounded, qc.KindBoundedLinear, qc.KindTriangleProduct, qc.KindDiffSlope, qc.KindDiffPostBox,
		qc.KindNoise, qc.KindNoiseLinear, qc.KindSat, qc.KindSatComplementarity, qc.KindFactProduct)
}

// DefaultOptions returns the defaults: the default QC set, worst-case
// weights, optimised bounds on 16 pieces of the box, refinement to
// within 1.1 of the observed error while it pays, under a budget of 2
// min, 2000 samples, and the solver's
// defaults with looser tolerances (see solverDefaults).
func DefaultOptions() Options {
	return Options{
		QC:         QCDefault,
		Weights:    WeightsWorstCase,
		Bounds:     bounds.MethodOptimised,
		Split:      16,
		Refine:     Refine{TimeBudget: 2 * time.Minute, TargetRatio: 1.1, MinGain: 0.05, MaxSDPWork: 5e9, MaxPropWork: 4e10, SettleWork: 1.2e11},
		Samples:    2000,
		Seed:       1,
		SearchWork: defaultSearchWork,
		Solver:     solverDefaults(),
	}
}

// Validate reports the first invalid option, naming it.
func (o *Options) Validate() error {
	switch {
	case o.QC < QCDefault || o.QC > QCPaper:
		return fmt.Errorf("certify: Options.QC = %d is unknown: %w", int(o.QC), ErrOptions)
	case o.Weights < WeightsWorstCase || o.Weights > WeightsCustom:
		return fmt.Errorf("certify: Options.Weights = %d is unknown: %w", int(o.Weights), ErrOptions)
	case o.Refine.MaxPieces < 0:
		return fmt.Errorf("certify: Options.Refine.MaxPieces = %d, want >= 0 (0: no cap): %w", o.Refine.MaxPieces, ErrOptions)
	case !(o.Refine.MaxSDPWork >= 0):
		return fmt.Errorf("certify: Options.Refine.MaxSDPWork = %v, want >= 0: %w", o.Refine.MaxSDPWork, ErrOptions)
	case !(o.Refine.MaxPropWork >= 0):
		return fmt.Errorf("certify: Options.Refine.MaxPropWork = %v, want >= 0: %w", o.Refine.MaxPropWork, ErrOptions)
	case !(o.Refine.SettleWork >= 0):
		return fmt.Errorf("certify: Options.Refine.SettleWork = %v, want >= 0: %w", o.Refine.SettleWork, ErrOptions)
	case !(o.Refine.MinGain >= 0 && o.Refine.MinGain < 1):
		return fmt.Errorf("certify: Options.Refine.MinGain = %v, want 0 <= MinGain < 1: %w", o.Refine.MinGain, ErrOptions)
	case o.Refine.TimeBudget < 0:
		return fmt.Errorf("certify: Options.Refine.TimeBudget = %v, want >= 0: %w", o.Refine.TimeBudget, ErrOptions)
	case !(o.Refine.Enough >= 0):
		return fmt.Errorf("certify: Options.Refine.Enough = %v, want >= 0: %w", o.Refine.Enough, ErrOptions)
	case !(o.Refine.TargetRatio >= 1):
		return fmt.Errorf("certify: Options.Refine.TargetRatio = %v, want >= 1: %w", o.Refine.TargetRatio, ErrOptions)
	case o.Arith < ArithReal || o.Arith > ArithFloat32:
		return fmt.Errorf("certify: Options.Arith = %d is unknown: %w", int(o.Arith), ErrOptions)
	case o.Method < MethodSDP || o.Method > MethodPropagation:
		return fmt.Errorf("certify: Options.Method = %d is unknown: %w", int(o.Method), ErrOptions)
	case o.Split < 0 || o.Split > maxSplit:
		return fmt.Errorf("certify: Options.Split = %d, want 0..%d: %w", o.Split, maxSplit, ErrOptions)
	case !(o.RequantSlack >= 0 && o.RequantSlack <= 1<<20):
		return fmt.Errorf("certify: Options.RequantSlack = %v, want 0..2^20: %w", o.RequantSlack, ErrOptions)
	case o.Samples < 0:
		return fmt.Errorf("certify: Options.Samples = %d, want >= 0: %w", o.Samples, ErrOptions)
	case !(o.SearchWork >= 0) || math.IsInf(o.SearchWork, 1):
		return fmt.Errorf("certify: Options.SearchWork = %v, want a finite number >= 0: %w", o.SearchWork, ErrOptions)
	}
	if o.Weights == WeightsCustom {
		for _, w := range o.Custom.vec() {
			if !(w >= 0) || math.IsInf(w, 0) {
				return fmt.Errorf("certify: Options.Custom has weight %v, want finite and >= 0: %w", w, ErrOptions)
			}
		}
	}
	if err := o.Solver.Validate(); err != nil {
		return fmt.Errorf("certify: Options.Solver: %w", err)
	}
	return nil
}

// solverDefaults returns the solver settings of DefaultOptions: the
// solver's defaults with a gap tolerance of 1e-5, a feasibility tolerance
// of 1e-6, at most 100 iterations and a starting dual matrix Y = I. The
// check absorbs any residual of the LMI into gamma, so the solve needs only
// the accuracy of the bound (1e-5 relative in its square is far below its
// distance to the error actually attained); on the certificate's larger
// SDPs the last digits cost a third of the iterations, and a solve that
// stalls short of them is better retried with a looser tolerance (see
// runSolver) than left to run on.
//
// The dual Y of the certificate's SDP acts as a second-moment matrix of
// the stacked vector, written in coordinates scaled to [-1, 1] (lmi.problem)
// and with a constant entry fixed by gamma's weight (1): its entries are
// of order 1 at most, and I is the scale of a solution. CSDP's start,
// 10 n I for an LMI with n rows in all, is four orders of magnitude too
// large on the root SDP of two 6x50 networks, where it costs half as many
// iterations again as I (docs/tuning.md).
func solverDefaults() sdp.Settings {
	s := sdp.DefaultSettings()
	s.GapTol, s.FeasTol, s.MaxIter = 1e-5, 1e-6, 100
	s.DualStart = 1
	return s
}

// task is one call of Bound: the question (the input set and the quantity)
// with the options answering it.
type task struct {
	Options
	in spec.Inputs
	q  spec.Quantity
	// deadline, when not zero, is when Refine.TimeBudget runs out: every
	// SDP solve is stopped there (budgetSolve).
	deadline time.Time
	// timing, shared by the copies of the task, collects where the time
	// went (never nil).
	timing *Timing
	// observed, when positive, is an error observed on the region: the
	// SDP is skipped when bound propagation is within Refine.TargetRatio
	// of it (certifyRegion).
	observed float64
	// deferCells, set on the halves of refine, leaves a region of more
	// than maxEagerCases cases of an input quantiser to bound propagation
	// (inputCases): refine bounds it case by case only if it comes to
	// the top of the pieces (laterCases).
	deferCells bool
	// propOnly bounds every region by bound propagation alone, without
	// its SDP: the pieces of the cheap refinement (cheapRefine).
	propOnly bool
	// settling marks the pieces of the cheap refinement past the target
	// ratio (settleTask).
	settling bool
	// widest marks the settling pieces past the work budget (settleTask),
	// which halve their widest coordinate, not the smear's.
	widest bool
	// rootBounds, when not nil, are the bounds of the root region
	// computed already (infBound's first pass), which sdpBound takes in
	// place of its own pass.
	rootBounds *regionBounds
	// cuttable lets ctx stop sdpBound's root pass: the caller holds a
	// certified bound already (infBound's first pass).
	cuttable bool
	// known, when positive, is a bound already certified on the region
	// (the cheap refinement's): like one of bound propagation it makes
	// the SDP skipped when within Refine.TargetRatio of the observed
	// error.
	known float64
}

// budgetContext returns ctx ending also when Refine.TimeBudget runs out
// (ctx itself without a budget), and its cancel function.
func (o *task) budgetContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.deadline.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, o.deadline)
}

// pastDeadline reports whether Refine.TimeBudget has run out.
func (o *task) pastDeadline() bool {
	return !o.deadline.IsZero() && !time.Now().Before(o.deadline)
}

// reached reports whether a bound ends the refinement: it is within
// TargetRatio of the observed error, or at most Enough (ending).
func (r *Refine) reached(bound, observed float64) bool {
	return r.ending(bound, observed) != StopNone
}

// ending returns why a bound ends the refinement: StopTarget when it is
// within TargetRatio of the observed error, StopEnough when it is at most
// Enough, StopNone when neither.
func (r *Refine) ending(bound, observed float64) Stop {
	switch {
	case bound <= r.TargetRatio*observed:
		return StopTarget
	case r.Enough > 0 && bound <= r.Enough:
		return StopEnough
	}
	return StopNone
}
