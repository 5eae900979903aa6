package certify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/sdp"
)

// regionResult is the outcome of certifying one region.
type regionResult struct {
	ok     bool
	status Status
	reason string
	gammas Gammas
	// sdpGammas are the SDP's checked gammas, kept when gammas are the
	// output enclosure's (zero when the SDP failed).
	sdpGammas Gammas
	margin    float64
	bound     float64
	size      int
	vars      int
	iters     int
	time      time.Duration
	sdpStatus sdp.Status
	objective float64
	// budgetHit reports that the time budget stopped the SDP solve.
	budgetHit bool
	// interval reports that the bound is the output enclosure's, not the
	// SDP's (smaller, or the SDP failed).
	interval bool
	// fellBack reports that the SDP failed and the bound is the output
	// enclosure's in its place.
	fellBack bool
	// spent is the time of building, solving and checking the SDP (zero
	// when the time budget abandoned it; see Timing.addSDP).
	spent Timing
	// skip says why the SDP was not attempted (sdpTooLarge, ...); reason
	// is its String.
	skip SDPSkip
	// sdpBound is the SDP's own bound (+Inf if it failed) and ivBound the
	// output enclosure's.
	sdpBound, ivBound float64
	// cuts counts the products of facts the cut rounds added to the SDP
	// whose bound this is, cutSolves the solves of those rounds
	// (cutRounds).
	cuts, cutSolves int
	// next is the coordinate of the region to halve next, plus 1 (0: the
	// widest), and prior its bounds for its halves (bounds.Options.Within):
	// set by the cheap refinement (task.propOnly).
	next  int
	prior *bounds.PairBounds
}

// maxMargin is the largest residual the check absorbs, relative to the
// worst-case value of the solver's gammas: a larger one means the solve
// failed, whatever its status says.
const maxMargin = 1e-3

// certifyRegion builds, solves and checks the SDP of one region, a piece
// of the refinement: its bound propagation stops when ctx is done or
// Refine.TimeBudget runs out, and the result is then Cancelled.
func certifyRegion(ctx context.Context, f1, f2 *nn.Network, r *region, o *task) regionResult {
	bctx, cancel := o.budgetContext(ctx)
	defer cancel()
	t0 := time.Now()
	rb, err := boundsOf(bctx, f1, f2, r, o)
	add(&o.timing.Propagation, t0)
	if err != nil {
		status := CheckFailed
		if bctx.Err() != nil {
			status = Cancelled
		}
		return regionResult{bound: math.Inf(1), sdpBound: math.Inf(1), ivBound: math.Inf(1), status: status, reason: err.Error()}
	}
	return certifyBounds(ctx, f1, f2, r, rb, o)
}

// certifyBounds is certifyRegion on the region r whose bounds rb are
// computed already.
func certifyBounds(ctx context.Context, f1, f2 *nn.Network, r *region, rb *regionBounds, o *task) regionResult {
	if o.propOnly {
		res := propagationOnly(rb, o)
		if !f1.Quantised() && !f2.Quantised() {
			res.reason = ""
		}
		if !o.widest {
			// Past the work budget, settling pieces halve their
			// widest coordinate (settleTask).
			res.next = splitHint(f1, f2, r, rb, o)
		}
		res.prior = rb.prior(r)
		return res
	}
	// Quantised networks get their SDP on the whole input set only (the
	// outputs' joint worst case): the pieces of a refinement keep bound
	// propagation, cheap and close there (thousands of pieces of the
	// 4-input controller).
	if (f1.Quantised() || f2.Quantised()) &&
		(!int8SDP(f1, o) || rb.Nets[0] == nil || rb.Nets[1] == nil || !sameBox(r.Box1, o.in.Box)) {
		return propagationOnly(rb, o)
	}
	// The output enclosure is a bound too: keep the smaller, and fall back
	// on it when the SDP failed (on small pieces it is nearly as tight).
	iv := rb.intervalValue(o)
	var res regionResult
	t0 := time.Now()
	defer func() { o.timing.addSDP(res.spent, t0, res.budgetHit) }()
	known := iv
	if o.known > 0 {
		known = min(iv, o.known)
	}
	if skip := closeEnough(known, o); skip.Skipped() {
		res = regionResult{bound: math.Inf(1), status: CheckFailed, reason: skip.String(), skip: skip}
	} else if o.deadline.IsZero() {
		res = sdpRegion(ctx, f1, f2, r, rb, o, nil)
	} else {
		res = budgeted(ctx, o.deadline, func(ctx context.Context, pr *sdpProgress) regionResult {
			return sdpRegion(ctx, f1, f2, r, rb, o, pr)
		})
	}
	res.sdpBound, res.ivBound = res.bound, iv
	if math.IsNaN(iv) || math.IsInf(iv, 0) || (res.ok && res.bound <= iv) {
		return res
	}
	if !res.ok && res.status == Cancelled && !res.budgetHit {
		return res
	}
	if !res.ok && !res.skip.Skipped() {
		res.reason = "SDP: " + res.reason + "; interval bound used"
		res.gammas, res.margin, res.fellBack = Gammas{}, 0, true
	}
	res.ok, res.status, res.interval = true, Certified, true
	res.bound = iv
	res.gammas = Gammas{Gamma: outward.MulUpStep(iv, iv)}
	return res
}

// propagationOnly returns the bound of bound propagation on a region of
// quantised networks (QDQ int8), whose quantisers the SDP's quadratic
// constraints do not model: the SDP is not built, and the splitting of the
// input set (refine) works on this bound alone.
func propagationOnly(rb *regionBounds, o *task) regionResult {
	iv := rb.intervalValue(o)
	res := regionResult{bound: math.Inf(1), sdpBound: math.Inf(1), ivBound: iv, status: CheckFailed,
		reason: noSDPReason}
	if math.IsNaN(iv) || math.IsInf(iv, 0) {
		return res
	}
	res.ok, res.status, res.interval, res.bound = true, Certified, true, iv
	res.gammas = Gammas{Gamma: outward.MulUpStep(iv, iv)}
	return res
}

// sdpRegion builds, solves and checks the SDP of one region with bounds
// rb, telling pr (if not nil) when the SDP is built.
func sdpRegion(ctx context.Context, f1, f2 *nn.Network, r *region, rb *regionBounds, o *task, pr *sdpProgress) regionResult {
	res := regionResult{bound: math.Inf(1), status: CheckFailed} // until the check passes
	t0 := time.Now()
	m, err := buildLMI(f1, f2, r, rb, o, true)
	if se := (skipError{}); errors.As(err, &se) {
		add(&res.spent.Build, t0)
		res.status, res.reason, res.skip, res.size = CheckFailed, se.skip.String(), se.skip, m.layout.Dim
		return res
	}
	if err != nil {
		res.status, res.reason = CheckFailed, err.Error()
		return res
	}
	sp := m.problem(weights(r, o), rb.expected(o))
	t0 = add(&res.spent.Build, t0)
	res.size, res.vars = m.layout.Dim, len(sp.C)
	if why := sdpTooMany(res.vars, o); why != "" {
		res.skip = SDPSkip{Why: SkipVariables, Detail: why}
		res.status, res.reason = CheckFailed, res.skip.String()
		return res
	}
	pr.built(res.size, res.vars, res.spent.Build)
	ck, sol, ok := solveChecked(ctx, m, sp, r, o, &res)
	if !ok {
		return res
	}
	res.ok, res.status = true, Certified
	res.gammas, res.sdpGammas, res.margin = ck.gammas, ck.gammas, ck.margin
	res.bound = outward.SqrtUp(worstValue(ck.gammas, r, o))
	if m.facts != nil {
		cutRounds(ctx, m, r, rb, o, sol.Y[0], &res, pr)
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "certify: x1 in %v..%v: bound %.6g (LMI %d, %d variables, %d iterations, margin %.2g)\n",
			r.Box1.Lo, r.Box1.Hi, res.bound, res.size, res.vars, res.iters, res.margin)
	}
	return res
}

// solveChecked solves sp and checks the solution against m, recording
// the effort and, on failure, the status and reason in res. It returns
// the checked solution and the solver's result when both passed.
func solveChecked(ctx context.Context, m *lmi, sp *sdpProblem, r *region, o *task, res *regionResult) (*checked, *sdp.Result, bool) {
	t0 := time.Now()
	sol, ok := runSolver(ctx, sp, o, res)
	t0 = add(&res.spent.Solve, t0)
	if !ok {
		return nil, nil, false
	}
	ck, err := m.check(sp, sol.X)
	add(&res.spent.Check, t0)
	if err != nil {
		res.status, res.reason = CheckFailed, err.Error()
		return nil, nil, false
	}
	if reason, bad := disguisedFailure(ck, r, o); bad {
		// A residual too large for the check to absorb: one more solve
		// with tolerances a hundred times tighter (the int8 digits model
		// on a ball: residual 1.2e-3 of the bound at a gap of 1e-5).
		if ck, sol, ok = tighterSolve(ctx, m, sp, o, res); !ok {
			res.status, res.reason = CheckFailed, reason
			return nil, nil, false
		}
		if reason, bad = disguisedFailure(ck, r, o); bad {
			res.status, res.reason = CheckFailed, reason
			return nil, nil, false
		}
	}
	return ck, sol, true
}

// tighterSolve solves sp again with the solver's gap and feasibility
// tolerances divided by 100 and twice the iterations, adding its effort
// to res, and returns the checked solution and the solver's result when
// it ended optimal or near-optimal and passed the check.
func tighterSolve(ctx context.Context, m *lmi, sp *sdpProblem, o *task, res *regionResult) (*checked, *sdp.Result, bool) {
	t := *o
	t.Solver.GapTol, t.Solver.FeasTol, t.Solver.MaxIter = o.Solver.GapTol/100, o.Solver.FeasTol/100, 2*o.Solver.MaxIter
	first := *res
	t0 := time.Now()
	sol, ok := runSolver(ctx, sp, &t, res)
	res.iters, res.time = res.iters+first.iters, res.time+first.time
	t0 = add(&res.spent.Solve, t0)
	if !ok {
		return nil, nil, false
	}
	ck, err := m.check(sp, sol.X)
	add(&res.spent.Check, t0)
	return ck, sol, err == nil
}

// runSolver solves sp with the configured solver and records how the solve
// went in res. It returns the solver's result when the solve ended
// optimal or near-optimal; otherwise res has the status and reason.
func runSolver(ctx context.Context, sp *sdpProblem, o *task, res *regionResult) (*sdp.Result, bool) {
	settings := o.Solver
	solve := sdp.Solve
	if o.Solve != nil {
		solve = o.Solve
	}
	if ctx.Err() != nil { // stopped while the SDP was built (budgeted)
		res.status, res.reason = Cancelled, "SDP solve cancelled"
		return nil, false
	}
	sol, err := solve(ctx, sp.Problem, &settings)
	if err == nil && failed(sol.Status) && settings.GapTol < maxRetryGap {
		// Near the optimum of the larger SDPs the solver can stall short
		// of its gap tolerance: retry with a ten times looser one (the
		// bound needs little accuracy; the check makes it sound anyway).
		retry := settings
		retry.GapTol = min(10*settings.GapTol, maxRetryGap)
		first := sol
		if sol, err = solve(ctx, sp.Problem, &retry); err == nil {
			sol.Iterations += first.Iterations
			sol.Time += first.Time
		}
	}
	if err != nil {
		res.status, res.reason = SolverFailed, err.Error()
		return nil, false
	}
	res.iters, res.time, res.sdpStatus, res.objective = sol.Iterations, sol.Time, sol.Status, sol.PrimalObjective*sp.objScale
	switch sol.Status {
	case sdp.Optimal, sdp.NearOptimal:
		return sol, true
	case sdp.Cancelled:
		res.status, res.reason = Cancelled, "SDP solve cancelled"

	default:
		res.status, res.reason = SolverFailed, "SDP solver ended with status "+sol.Status.String()
	}
	return nil, false
}

// failed reports a status of a solve that neither reached a solution nor
// was cancelled.
func failed(s sdp.Status) bool {
	return s != sdp.Optimal && s != sdp.NearOptimal && s != sdp.Cancelled
}

// maxRetryGap is the loosest gap tolerance a failed solve is retried with.
const maxRetryGap = 1e-3

// sdpProgress is how far an SDP that budgeted runs has got: whether it is
// built, and its size, so that an SDP the budget stops says what it had
// reached. Its methods are safe for concurrent use and on a nil receiver.
type sdpProgress struct {
	mu         sync.Mutex
	done       bool // built: the solver has started
	size, vars int
	build      time.Duration
	// best, when not nil, is a checked result the SDP's later rounds
	// (cutRounds) try to improve on.
	best *regionResult
}

// built records that the SDP of order size with vars variables was built
// in time build, and its solve begins.
func (p *sdpProgress) built(size, vars int, build time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.size, p.vars, p.build = true, size, vars, build
}

// certified records a checked result that later work on the SDP may
// improve on: the time budget keeps it (stopped).
func (p *sdpProgress) certified(res regionResult) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.best = &res
}

// stopped returns the result of an SDP that the time budget stopped
// after running for elapsed, saying what it had reached: the last checked
// result, if any (certified), otherwise a cancelled one.
func (p *sdpProgress) stopped(elapsed time.Duration) regionResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.best != nil {
		res := *p.best
		res.budgetHit = true
		return res
	}
	res := regionResult{bound: math.Inf(1), status: Cancelled, budgetHit: true}
	if !p.done {
		res.reason, res.spent.Build = "SDP not built: the time budget ended while its constraints were assembled", elapsed
		return res
	}
	res.size, res.vars = p.size, p.vars
	res.spent = Timing{Build: p.build, Solve: max(0, elapsed-p.build)}
	res.reason = fmt.Sprintf("SDP (LMI of order %d, %d variables) stopped by the time budget during its solve", p.size, p.vars)
	return res
}

// budgeted returns region(ctx, pr) with ctx ending at deadline, by the
// deadline: when it runs out, the result is Cancelled with budgetHit set,
// even while region is building its SDP or inside a solver iteration,
// which do not look at the context (building the paper's QC set or
// factoring a large Schur complement can take minutes); its reason and
// size say how far region had got, as it told pr. That work then runs on
// in the background until it next looks at the context (the solver does
// at every iteration) and its result is dropped.
func budgeted(ctx context.Context, deadline time.Time, region func(context.Context, *sdpProgress) regionResult) regionResult {
	start := time.Now()
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	pr := &sdpProgress{}
	done := make(chan regionResult, 1)
	go func() { done <- region(dctx, pr) }()
	var res regionResult
	select {
	case res = <-done:
	case <-dctx.Done():
		select {
		case res = <-done: // finished at the same moment
		default:
			if ctx.Err() != nil {
				return regionResult{bound: math.Inf(1), status: Cancelled}
			}
			return pr.stopped(time.Since(start))
		}
	}
	if !res.ok && res.status == Cancelled && ctx.Err() == nil {
		res.reason, res.budgetHit = pr.stopped(0).reason, true
	}
	return res
}
