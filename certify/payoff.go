package certify

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/nnbound/nnbound/nn"
)

// Timing says where the time of Bound went. The parts do not add up to
// Certificate.Time: the rest is bookkeeping (splitting, merging), and the
// pieces of the refinement certified in parallel add the time of each.
type Timing struct {
	// Propagation is the time in bound propagation (the pre-activation
	// bounds and the output enclosure of every piece).
	Propagation time.Duration
	// Search is the time in the observed-error search.
	Search time.Duration
	// Build is the time assembling the SDPs' quadratic constraints.
	Build time.Duration
	// Solve is the time in the SDP solver.
	Solve time.Duration
	// Check is the time in the independent check of the solutions.
	Check time.Duration
}

// addSDP adds the time spent on one region's SDP, measured where it ran,
// to t. An SDP that the time budget abandoned (budgeted, budgetHit set)
// may report nothing, its goroutine still running: the time since start
// is then counted as Solve.
func (t *Timing) addSDP(spent Timing, start time.Time, budgetHit bool) {
	if budgetHit && spent == (Timing{}) {
		t.Solve += time.Since(start)
		return
	}
	t.Build += spent.Build
	t.Solve += spent.Solve
	t.Check += spent.Check
}

// addAll adds every part of u to t.
func (t *Timing) addAll(u Timing) {
	t.Propagation += u.Propagation
	t.Search += u.Search
	t.Build += u.Build
	t.Solve += u.Solve
	t.Check += u.Check
}

// add adds the time since start to *d and returns now, so that the
// phases of a flow can be timed one after the other.
func add(d *time.Duration, start time.Time) time.Time {
	now := time.Now()
	*d += now.Sub(start)
	return now
}

// MaxBudgetOrder is the largest order of an LMI that Bound solves when
// Options.Refine.TimeBudget is set: an interior-point iteration costs
// about order^3 (its Schur complement and factorisations), and an LMI of
// order 728 (HAR, 561-500-6) did not solve in 150 s on two cores, while
// those of order up to ~100 (ACAS Xu) solve in about a second. Above it
// the SDP is skipped and the bound is bound propagation's, which says so;
// with no time budget (0), or with Refine.SolveLarge, every SDP is
// attempted. The rule uses sizes
// alone, so the result does not depend on the machine's load.
const MaxBudgetOrder = 400

// MaxBudgetVariables is the largest number of variables (gammas and
// multipliers) of an SDP that Bound solves when Options.Refine.TimeBudget
// is set: every interior-point iteration forms and factors a dense Schur
// complement of that order, in time growing as its cube and memory as its
// square, and does not look at the clock meanwhile. The authors' QC set
// (QCPaper) on a Table 1 instance with l = 4 (3,408 variables) solves in
// about 11 s on two cores, so 6,000 variables take about a minute; the
// 10,736 of a 2-24-24-24-1 network against a pruned copy (the authors'
// slope pairs of all 144 neurons) need a Schur complement of 0.9 GB and
// over a minute per iteration. Above it the SDP is skipped, as above
// MaxBudgetOrder.
const MaxBudgetVariables = 6000

// sdpTooLarge returns why the SDP of order n is skipped, or "" when it is
// attempted (see MaxBudgetOrder).
func sdpTooLarge(n int, o *task) string {
	if o.Refine.TimeBudget <= 0 || o.Refine.SolveLarge || n <= MaxBudgetOrder {
		return ""
	}
	return fmt.Sprintf("LMI of order %d over the limit %d of a time budget (certify.MaxBudgetOrder)", n, MaxBudgetOrder)
}

// sdpTooMany returns why an SDP with vars variables is skipped, or ""
// when it is attempted (see MaxBudgetVariables).
func sdpTooMany(vars int, o *task) string {
	if o.Refine.TimeBudget <= 0 || o.Refine.SolveLarge || vars <= MaxBudgetVariables {
		return ""
	}
	return fmt.Sprintf("%d SDP variables over the limit %d of a time budget (certify.MaxBudgetVariables)", vars, MaxBudgetVariables)
}

// defaultSearchWork is the default of Options.SearchWork.
const defaultSearchWork = 4e8

// searchEvals returns the evaluation budget of the observed-error search
// on a box of dim inputs (search.Options.MaxEvals) that may spend work
// (0: defaultSearchWork): work divided by the multiply-adds of one
// evaluation of both networks (their parameters), but at least 100 +
// dim/2, so that a larger box never gets fewer evaluations than a few per
// coordinate. It keeps the search on wide networks (HAR, MNIST) to a few
// hundred evaluations.
func searchEvals(f1, f2 *nn.Network, dim int, work float64) int {
	if work == 0 {
		work = defaultSearchWork
	}
	per := float64(max(1, f1.NumParams()+f2.NumParams()))
	return max(100+dim/2, int(min(work/per, 1<<30)))
}

// pieceEvals returns the evaluation budget of the search on one piece of
// the refinement: a quarter of the first pass's (searchEvals of work).
func pieceEvals(f1, f2 *nn.Network, dim int, work float64) int {
	return max(1, searchEvals(f1, f2, dim, work)/4)
}

// logTiming writes one line to w saying where the time of c went.
func logTiming(w io.Writer, c *Certificate) {
	t := c.Timing
	fmt.Fprintf(w, "certify: time %.3g s: propagation %.3g s, search %.3g s, SDP build %.3g s, solve %.3g s, check %.3g s\n",
		c.Time.Seconds(), t.Propagation.Seconds(), t.Search.Seconds(), t.Build.Seconds(), t.Solve.Seconds(), t.Check.Seconds())
	if c.SDPSkipped.Skipped() {
		fmt.Fprintf(w, "certify: %v\n", c.SDPSkipped)
	}
}

// closeEnough returns why the SDP of a region is skipped (SkipClose), or
// SkipNone: with the default QC set, when the output enclosure iv of
// bound propagation is at most Refine.Enough, or, under a time budget
// (Refine.TimeBudget > 0), already within Refine.TargetRatio of the error
// observed on it (o.observed): the SDP could tighten the bound by that
// ratio at most. With no time budget and no Enough (the demo, the
// paper's experiments) every SDP is solved, its gammas reported. Like
// sdpTooLarge it depends on numbers alone, not on time.
func closeEnough(iv float64, o *task) SDPSkip {
	if o.QC == QCDefault && o.Refine.Enough > 0 && iv <= o.Refine.Enough {
		return SDPSkip{Why: SkipClose, Detail: fmt.Sprintf("bound propagation's %.5g is already at most %.5g, the bound asked for", iv, o.Refine.Enough)}
	}
	if o.Refine.TimeBudget <= 0 || o.QC != QCDefault || !(o.observed > 0) || math.IsInf(iv, 0) || !(iv <= o.Refine.TargetRatio*o.observed) {
		return SDPSkip{}
	}
	return SDPSkip{Why: SkipClose, Detail: fmt.Sprintf("bound propagation's %.5g is already within the target ratio %g of the observed error %.5g",
		iv, o.Refine.TargetRatio, o.observed)}
}

// noGain reports whether a refinement ends for want of gain (StopNoGain)
// with solves pieces certified, the largest bound of the pieces bound and
// the observed error observed: the gain rule says so (stop, on the gap
// bound - observed) and the bound is not within Refine.TargetRatio of
// the observed error (which ends it with StopTarget instead).
func (g *gainRule) noGain(solves int, bound, observed float64, r *Refine) bool {
	return g.stop(solves, bound-observed, r) && !r.reached(bound, observed)
}
