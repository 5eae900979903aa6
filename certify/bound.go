package certify

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Bound certifies an upper bound on the quantity q of f1(x1) - f2(x2) (the
// 2-norm, the inf-norm or |c^T (f1(x1) - f2(x2))|, see spec.Quantity) for
// every input pair (x1, x2) of in, by the SDP of Theorem 1 of Li, Drummond
// and Duncan (L4DC 2021) with the QC set opts.QC, checks the solution
// independently of the solver, and reports the largest error observed at
// actual inputs next to it (search.MaxError).
//
// The error is non-nil only for invalid input (networks that do not fit
// each other or the box, an invalid input set, quantity or options);
// whether a bound was certified is Certificate.Status.
func Bound(ctx context.Context, f1, f2 *nn.Network, in spec.Inputs, q spec.Quantity, opts Options) (*Certificate, error) {
	start := time.Now()
	if opts.Arith != ArithReal {
		return nil, fmt.Errorf("certify: Bound certifies real arithmetic, not %v (BoundGraph does; the SDP models exact reals): %w", opts.Arith, ErrArith)
	}
	t := task{Options: opts, in: in, q: q, timing: &Timing{}}
	if opts.Refine.TimeBudget > 0 {
		t.deadline = start.Add(opts.Refine.TimeBudget)
	}
	if err := checkInput(f1, f2, &t); err != nil {
		return nil, err
	}
	box := in.Box
	var c *Certificate
	switch {
	case t.Method == MethodPropagation:
		c = intervalBound(ctx, f1, f2, box, t)
	case t.q.C == nil && t.q.Norm == spec.NormInf && f1.OutputSize() > 1 && t.InfJoint:
		c = jointInfBound(ctx, f1, f2, box, t)
	case t.q.C == nil && t.q.Norm == spec.NormInf && f1.OutputSize() > 1:
		c = infBound(ctx, f1, f2, box, t)
	default:
		c = sdpBound(ctx, f1, f2, box, t)
	}
	if c.Certified() && c.ObservedError > c.Bound && !math.IsInf(c.ObservedError, 1) {
		checkAttained(c)
	}
	c.Inputs, c.QC = in.Clone(), t.QC
	c.Quantity = spec.Quantity{Norm: t.q.Norm, C: slices.Clone(t.q.C)}
	c.Trivial = trivialBound(f1, f2, t.q)
	c.Method = t.Method
	c.Time = time.Since(start)
	c.Timing = *t.timing
	if t.Log != nil {
		logTiming(t.Log, c)
	}
	return c, nil
}

// RoundingTolerance is how far, relative to the observed error, the
// float64 evaluation of the networks may exceed a certified bound before
// the certificate fails:
//
//	ObservedError - Bound <= RoundingTolerance * max(1, ObservedError)
//
// The SDP bounds the exact networks; their float64 evaluation rounds at
// every layer, which can put a tight bound a few units in the last place
// below the error observed. Beyond this, a bound below an attained error
// is wrong, and the certificate says so (CheckFailed).
const RoundingTolerance = 1e-9

// checkAttained handles a certified bound below the observed error: within
// RoundingTolerance the bound is raised to the observed error and the
// reason says by how much; beyond it the certificate fails loudly.
func checkAttained(c *Certificate) {
	excess := c.ObservedError - c.Bound
	if excess <= RoundingTolerance*max(1, c.ObservedError) {
		note := fmt.Sprintf("bound raised by %.3g to the observed error (float64 rounding of the networks)", excess)
		if c.Note != "" {
			note = c.Note + "; " + note
		}
		c.Bound, c.Note = c.ObservedError, note
		return
	}
	c.Status = CheckFailed
	c.Note, c.Reason = "", fmt.Sprintf("the bound %.17g is below the error %.17g attained at x1 = %v, x2 = %v, beyond rounding: "+
		"the bound is wrong (a bug: please report it with the command line)", c.Bound, c.ObservedError, c.X1, c.X2)
	c.Bound = math.Inf(1)
}

// intervalBound returns the bound of bound propagation alone: the value of
// the output difference enclosure of the whole input set (rootPass, the
// same single pass as the first bound of sdpBound; its first pass when the
// time budget or a signal cut it, and Stopped says so).
func intervalBound(ctx context.Context, f1, f2 *nn.Network, box spec.Box, opts task) *Certificate {
	c := &Certificate{Status: CheckFailed, RootBound: math.Inf(1), Bound: math.Inf(1), Source: MethodPropagation, SDPBound: math.Inf(1)}
	// The search runs beside the pass, both under the budget and the
	// signal (after a cut pass the budget would leave it nothing).
	sctx, cancel := opts.budgetContext(ctx)
	defer cancel()
	searched := make(chan observation, 1)
	go func() { searched <- searchError(sctx, f1, f2, box, &opts) }()
	t0 := time.Now()
	root := rootRegion(box, &opts)
	rb, cut, err := rootPass(ctx, f1, f2, &root, &opts)
	add(&opts.timing.Propagation, t0)
	c.Stopped, c.TimeBudgetHit = cut, cut == StopBudget
	if err == nil {
		if opts.q.C == nil {
			for _, iv := range rb.Output {
				c.Outputs = append(c.Outputs, iv.Mag())
			}
		}
		c.Bound, c.Bounded = rb.intervalValue(&opts), 1
	}
	if err != nil || math.IsNaN(c.Bound) || math.IsInf(c.Bound, 0) {
		c.Status, c.Reason = CheckFailed, "bound propagation gave no finite bound"
		if err != nil {
			c.Reason = err.Error()
		}
	} else {
		c.Status, c.RootBound, c.IntervalBound = Certified, c.Bound, c.Bound
		c.Gamma = outward.MulUpStep(c.Bound, c.Bound)
	}
	ob := <-searched
	c.ObservedError, c.X1, c.X2, c.ObservedExact = ob.err, ob.x1, ob.x2, ob.exact
	return c
}

// sdpBound certifies with the SDP, splitting the input set if the options
// allow. The root's pass of bound propagation is the first certificate
// (rootPass): when the time budget or a signal cut it, its first pass's
// bound is the certificate's, with nothing refined, and Stopped says why.
func sdpBound(ctx context.Context, f1, f2 *nn.Network, box spec.Box, opts task) *Certificate {
	root := rootRegion(box, &opts)
	c := &Certificate{Status: CheckFailed}
	// The search and the root's bounds are independent: they run side by
	// side (each adds to its own field of the timing), both stopped by the
	// time budget and the signal.
	sctx, cancel := opts.budgetContext(ctx)
	defer cancel()
	searched := make(chan observation, 1)
	go func() { searched <- searchError(sctx, f1, f2, box, &opts) }()
	rb, err := opts.rootBounds, error(nil)
	rootCut := StopNone // why the root's full pass was cut (its first pass stands)
	// Before the cheap refinement, which splits the input set itself, the
	// root's pass is one pass over the whole set (unsplitRoot).
	unsplit := rb == nil && cheapFirst(&root, &opts)
	if rb == nil {
		t0 := time.Now()
		if opts.cuttable {
			// The caller holds a certificate already: ctx stops the
			// root's pass, and nothing of it stands.
			rb, err = boundsOf(ctx, f1, f2, &root, unsplitRoot(&opts, unsplit))
		} else {
			rb, rootCut, err = rootPass(ctx, f1, f2, &root, unsplitRoot(&opts, unsplit))
		}
		add(&opts.timing.Propagation, t0)
	}
	ob := <-searched
	var cheap []piece // the pieces of the cheap refinement (cheap.go), if it ran
	cheapStop := StopNone
	cc := &Certificate{}
	if err == nil && rootCut == StopNone && cheapFirst(&root, &opts) {
		cheap, cheapStop = cheapRefine(ctx, f1, f2, root, rb, &opts, &ob, cc)
	}
	ro := opts
	ro.observed = ob.err // the root's SDP is skipped when propagation is already close to it
	cheapBound := math.Inf(1)
	if cheap != nil {
		cheapBound = currentBound(math.Inf(1), cheap, nil)
		ro.known = cheapBound
	}
	var rp regionResult
	switch {
	case err != nil:
		rp = regionResult{bound: math.Inf(1), sdpBound: math.Inf(1), ivBound: math.Inf(1), status: CheckFailed, reason: err.Error()}
	case rootCut != StopNone || cheapStop == StopBudget || cheapStop == StopCancelled || cheapStop == StopCostly:
		// Out of time or work: no SDP (the cheap pieces were still paying
		// when the work budget ran out; the whole set's SDP rarely beats
		// them then).
		rp = propagationOnly(rb, &ro)
		rp.reason = ""
		stop := cheapStop
		if rootCut != StopNone {
			stop = rootCut
		}
		c.SDPSkipped = SDPSkip{Why: stopSkip(stop)}
	default:
		if unsplit && !closeEnough(cheapBound, &ro).Skipped() {
			// The whole set's SDP is built on the root's split bounds.
			t0 := time.Now()
			// A cut pass leaves the unsplit bounds.
			if sb, serr := boundsOf(sctx, f1, f2, &root, &opts); serr == nil {
				rb = sb
			}
			add(&opts.timing.Propagation, t0)
		}
		rp = certifyBounds(ctx, f1, f2, &root, rb, &ro)
	}
	if rp.iters > 0 && !(rp.ok && opts.Refine.reached(rp.bound, ob.err)) {
		ob.searchMore(ctx, f1, f2, box, &opts, rp.bound)
	}
	c.TimeBudgetHit = rp.budgetHit || cc.TimeBudgetHit || rootCut == StopBudget
	c.SDP = SDPStats{Size: rp.size, Variables: rp.vars, Solves: 1 + rp.cutSolves, Iterations: rp.iters, Time: rp.time,
		Status: rp.sdpStatus, Objective: rp.objective}
	c.Bounded = 1
	c.RootBound, c.SDPBound, c.IntervalBound = math.Inf(1), rp.sdpBound, rp.ivBound
	c.SDPGammas = rp.sdpGammas
	if rp.skip.Skipped() {
		c.SDPSkipped, c.SDP = rp.skip, SDPStats{Size: rp.size, Variables: rp.vars}
	}
	if rp.ok {
		c.Gammas, c.Margin, c.RootBound = rp.gammas, rp.margin, rp.bound
		if rp.interval && rp.reason != "" {
			c.Note = "root " + rp.reason
		}
	}

	leaves := []piece{{region: root, bound: rp.bound, ok: rp.ok, interval: rp.interval, fellBack: rp.fellBack}}
	switch {
	case rootCut != StopNone:
		c.Stopped, c.Note = rootCut, rootCutNote(rootCut)
	case opts.QC != QCDefault || opts.Refine.MaxPieces == 1:
	case rp.budgetHit:
		c.Stopped = StopBudget
	case cheap != nil && rp.iters == 0:
		// No SDP was solved: the SDP's refinement would redo the cheap one.
		c.Stopped = cheapStop
		if ctx.Err() != nil {
			c.Stopped = StopCancelled
		}
	default:
		leaves, c.Stopped = refine(ctx, f1, f2, root, rp, &opts, &ob, c)
	}
	if b := currentBound(math.Inf(1), leaves, nil); cheapBound < b && cheapBound < rp.bound {
		leaves = cheap // the cheap pieces' bound is the smaller
	}
	c.SDP.Solves += cc.SDP.Solves
	c.Bounded += cc.Bounded // the halves of the cheap refinement's splits
	c.Bound = 0
	allOK := true
	byInterval := false // the largest piece bound is an output enclosure's
	for _, lf := range leaves {
		if !lf.ok {
			allOK = false
			break
		}
		if lf.bound >= c.Bound {
			c.Bound, byInterval = lf.bound, lf.interval
		}
	}
	if len(leaves) > 1 {
		for _, lf := range leaves {
			c.Pieces = append(c.Pieces, Piece{Lo1: lf.region.Box1.Lo, Hi1: lf.region.Box1.Hi,
				Lo2: lf.region.Box2.Lo, Hi2: lf.region.Box2.Hi, Bound: lf.bound})
		}
	}
	switch {
	case allOK:
		fellBack := 0
		for _, lf := range leaves {
			if lf.fellBack {
				fellBack++
			}
		}
		if c.RootBound <= c.Bound {
			c.Bound, byInterval = c.RootBound, rp.interval
			c.Pieces = nil
			fellBack = 0
			if rp.fellBack {
				fellBack = 1
			}
		}
		c.Status = Certified
		if byInterval {
			c.Source = MethodPropagation
		}
		c.Fallbacks = fellBack
		if fellBack > 0 && len(c.Pieces) > 0 {
			c.Note = fmt.Sprintf("the SDP failed on %d of %d pieces, bounded by bound propagation instead", fellBack, len(c.Pieces))
		}
	case ctx.Err() != nil:
		c.Status, c.Reason, c.Note, c.Bound = Cancelled, ctx.Err().Error(), "", math.Inf(1)
	default:
		c.Status, c.Reason, c.Note, c.Bound = rp.status, rp.reason, "", math.Inf(1)
		if rp.ok {
			c.Status, c.Reason = SolverFailed, "a piece of the split input set could not be certified"
		} else if c.Status == Certified { // a root that failed without saying how: claim nothing
			c.Status = CheckFailed
		}
	}
	if !rp.ok && c.Certified() {
		// No gammas were verified on the whole set; Bound^2 is a gamma
		// that holds everywhere.
		c.Note = "root SDP: " + rp.reason + "; bound from the split input set"
		c.Gammas = Gammas{Gamma: outward.MulUpStep(c.Bound, c.Bound)}
	}
	c.ObservedError, c.X1, c.X2, c.ObservedExact = ob.err, ob.x1, ob.x2, ob.exact
	if c.Certified() && rootCut == StopNone && c.Stopped != StopNone && c.Stopped != StopCancelled {
		// The pieces kept may be the cheap refinement's and the stop the
		// SDP refinement's (which stopped above the target, at its work
		// budget): a bound kept within the target, or at most Enough,
		// ends as such (as settled and settledStop say).
		if e := opts.Refine.ending(c.Bound, c.ObservedError); e != StopNone {
			c.Stopped = e
		}
	}
	if (f1.Quantised() || f2.Quantised()) && c.Certified() {
		c.Note = int8Certificate(f1, f2, rb, rp, c, &opts)
	}
	return c
}

// rootCutNote says that stop (StopBudget or StopCancelled) cut the
// root's full pass of bound propagation (rootPass) and which bound stands.
func rootCutNote(stop Stop) string {
	why := "the time budget ran out"
	if stop == StopCancelled {
		why = "the run was cancelled"
	}
	return why + " during the root's bound propagation: the bound is its first pass's (symbolic, the input set whole)"
}

// stopSkip returns why no SDP was run after a pass or a refinement that
// stopped by stop (StopBudget, StopCancelled or StopCostly).
func stopSkip(stop Stop) Skip {
	switch stop {
	case StopBudget:
		return SkipBudget
	case StopCancelled:
		return SkipCancelled
	}
	return SkipPieces
}

// noSDPReason says where the bound of quantised networks comes from when
// no SDP is built for them (int8SDP).
const noSDPReason = "the SDP does not model the int8 quantisers for this quantity: bound propagation with input splitting"

// int8Certificate returns the note of a certificate of quantised
// networks: which quadratic constraints modelled their quantisers when
// the root's SDP was solved, otherwise where the bound comes from.
func int8Certificate(f1, f2 *nn.Network, rb *regionBounds, rp regionResult, c *Certificate, o *task) string {
	if !int8SDP(f1, o) || rb == nil || rb.Nets[0] == nil {
		c.SDP, c.SDPGammas, c.SDPSkipped = SDPStats{}, Gammas{}, SDPSkip{Why: SkipQuantised}
		return noSDPReason
	}
	v, err := lowerForSDP(f1, f2, rb, o)
	if err != nil || rp.iters == 0 {
		why := "the SDP was not solved"
		if rp.reason != "" {
			why = rp.reason
		}
		return "int8 SDP: " + why + "; bound propagation with input splitting"
	}
	if c.Note != "" { // what became of the SDP, said by sdpBound
		return c.Note + "; " + int8Note(v, rp.cuts)
	}
	return int8Note(v, rp.cuts)
}

// checkInput validates the networks, the input set, the quantity and the
// options.
func checkInput(f1, f2 *nn.Network, o *task) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if err := o.q.Validate(); err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	box := o.in.Box
	for n, f := range [2]*nn.Network{f1, f2} {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("certify: network %d: %w", n+1, err)
		}
		if o.Method != MethodPropagation && o.InfJoint && f.Quantised() {
			return fmt.Errorf("certify: network %d: the joint inf-norm SDP does not model activation quantisers (QDQ int8): %w",
				n+1, nn.ErrQuantised)
		}
	}
	if err := o.in.Validate(); err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	if f1.InputSize() != box.Dim() || f2.InputSize() != box.Dim() {
		return fmt.Errorf("certify: networks take %d and %d inputs, box has %d: %w",
			f1.InputSize(), f2.InputSize(), box.Dim(), nn.ErrDimension)
	}
	if f1.OutputSize() != f2.OutputSize() {
		return fmt.Errorf("certify: network 1 has %d outputs, network 2 has %d: %w",
			f1.OutputSize(), f2.OutputSize(), nn.ErrDimension)
	}
	if o.q.C != nil && len(o.q.C) != f1.OutputSize() {
		return fmt.Errorf("certify: C has %d entries for %d outputs: %w", len(o.q.C), f1.OutputSize(), nn.ErrDimension)
	}
	return checkQuant(box, o)
}

// checkQuant rejects a saturating input quantiser that clamps somewhere in
// the box. The certificate describes x2 = q(x1) by the rounding alone
// (quantisation cells, |x2 - x1| <= 2^-FB, the sector of truncation), which
// the clamp breaks: x2 = 1.75 for x1 = 8 is 6.25 away. Rounding is
// monotone, so the clamp acts nowhere in the box when it acts at neither
// end of any coordinate; there a saturating quantiser is the plain one.
func checkQuant(box spec.Box, o *task) error {
	if o.in.Pairing != spec.QuantisedInput || !o.in.Quant.Saturate {
		return nil
	}
	for i := range box.Lo {
		_, outLo := o.in.Quant.Quantise(box.Lo[i])
		_, outHi := o.in.Quant.Quantise(box.Hi[i])
		if outLo || outHi {
			return fmt.Errorf("certify: the saturating input quantiser %v clamps input %d of the box [%g, %g] at ±%g, which the certificate does not model (keep the box within the quantiser's range, give it more IntBits, or drop Saturate): %w",
				o.in.Quant, i, box.Lo[i], box.Hi[i], o.in.Quant.Limit(), ErrOptions)
		}
	}
	return nil
}
