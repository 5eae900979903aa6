package certify

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/spec"
)

// jointInfBound certifies max_j |f1_j - f2_j| by one SDP with a block and
// gammas per output j, all blocks sharing the multipliers of the terms
// (Options.InfJoint; see lmi.problemOf):
//
//	d_j d_j^T - sum_g gamma_jg G_g + sum_k lambda_k M_k <= 0   for every j,
//
// minimising the largest worst-case value over the outputs. Sharing the
// multipliers makes it one solve with the multipliers of one output's
// SDP, but looser than one SDP per output, whose multipliers may differ.
// Each output's bound is the smaller of its block's and its output
// enclosure's. The input set is not split. The root's pass of bound
// propagation is rootPass's: when the time budget or a signal cut it,
// its first pass's enclosures are the bounds, no SDP is built, and
// Stopped says why.
func jointInfBound(ctx context.Context, f1, f2 *nn.Network, box spec.Box, opts task) *Certificate {
	c := &Certificate{Status: CheckFailed, Bound: math.Inf(1), RootBound: math.Inf(1), SDPBound: math.Inf(1), IntervalBound: math.Inf(1)}
	r := rootRegion(box, &opts)
	defer func() {
		ob := searchError(ctx, f1, f2, box, &opts)
		c.ObservedError, c.X1, c.X2, c.ObservedExact = ob.err, ob.x1, ob.x2, ob.exact
	}()
	rb, cut, err := rootPass(ctx, f1, f2, &r, &opts)
	if err != nil {
		c.Status, c.Reason = CheckFailed, err.Error()
		return c
	}
	ivs := make([]float64, len(rb.Output))
	expect := 0.0
	for j, iv := range rb.Output {
		ivs[j] = iv.Mag()
		expect = max(expect, ivs[j]*ivs[j])
	}
	c.IntervalBound = maxOf(ivs)
	if cut != StopNone {
		if b := c.IntervalBound; math.IsNaN(b) || math.IsInf(b, 0) {
			c.Status, c.Reason = CheckFailed, "bound propagation gave no finite bound"
			return c
		}
		c = firstCertificate(ivs, slices.Index(ivs, c.IntervalBound))
		c.Outputs, c.Stopped, c.TimeBudgetHit = ivs, cut, cut == StopBudget
		c.SDPSkipped, c.Note = SDPSkip{Why: stopSkip(cut)}, rootCutNote(cut)
		return c
	}
	m, err := buildLMI(f1, f2, &r, rb, &opts, false)
	if err != nil {
		c.Status, c.Reason = CheckFailed, err.Error()
		return c
	}
	objs := make([][]qc.Form, len(m.diff))
	for j, d := range m.diff {
		objs[j] = []qc.Form{d}
	}
	sp := m.problemOf(objs, weights(&r, &opts), expect)
	var res regionResult
	sctx, cancel := opts.budgetContext(ctx) // the solver stops at its next iteration
	defer cancel()
	sol, ok := runSolver(sctx, sp, &opts, &res)
	c.TimeBudgetHit = !ok && res.status == Cancelled && ctx.Err() == nil
	c.SDP = SDPStats{Size: m.layout.Dim, Variables: len(sp.C), Solves: 1, Iterations: res.iters, Time: res.time,
		Status: res.sdpStatus, Objective: res.objective}
	sdpOK := ok
	outs := make([]float64, len(objs))
	gammas := make([]Gammas, len(objs))
	margins := make([]float64, len(objs))
	for j := range objs {
		outs[j] = math.Inf(1)
		if !ok {
			continue
		}
		ck, err := m.checkBlock(sp, sol.X, j)
		if err != nil {
			res.status, res.reason, sdpOK = CheckFailed, err.Error(), false
			continue
		}
		if reason, bad := disguisedFailure(ck, &r, &opts); bad {
			res.status, res.reason, sdpOK = CheckFailed, reason, false
			continue
		}
		outs[j], gammas[j], margins[j] = outward.SqrtUp(worstValue(ck.gammas, &r, &opts)), ck.gammas, ck.margin
	}
	sdpGammas := slices.Clone(gammas)
	if sdpOK {
		c.SDPBound = maxOf(outs)
	}
	// Each output: the smaller of its SDP block's bound and its enclosure's.
	fromIv := make([]bool, len(outs))
	worst := 0
	for j, iv := range ivs {
		if !(outs[j] <= iv) && !math.IsNaN(iv) && !math.IsInf(iv, 0) {
			outs[j], gammas[j], margins[j], fromIv[j] = iv, Gammas{Gamma: outward.MulUpStep(iv, iv)}, 0, true
		}
		if outs[j] > outs[worst] {
			worst = j
		}
	}
	c.Outputs = outs
	if len(outs) == 0 || math.IsInf(outs[worst], 0) || math.IsNaN(outs[worst]) {
		c.Status, c.Reason = res.status, res.reason
		if c.Status == Certified { // every block passed, yet an output has no finite bound
			c.Status, c.Reason = CheckFailed, "an output has no finite bound"
		}
		if ctx.Err() != nil {
			c.Status, c.Reason = Cancelled, ctx.Err().Error()
		}
		return c
	}
	c.Status = Certified
	c.Bound, c.RootBound = outs[worst], outs[worst]
	c.Gammas, c.Margin = gammas[worst], margins[worst]
	if sdpOK {
		c.SDPGammas = sdpGammas[worst]
	}
	if fromIv[worst] {
		c.Source = MethodPropagation
	}
	if !sdpOK {
		c.Note = "SDP: " + res.reason + "; interval bounds used"
		c.Fallbacks = 1
	}
	return c
}

// disguisedFailure reports a check that had to absorb a residual larger
// than maxMargin of the bound the solver's gammas claim: the point is far
// from satisfying the LMI, a numerically failed solve in disguise.
func disguisedFailure(ck *checked, r *region, o *task) (string, bool) {
	solved := ck.gammas
	solved.Gamma -= ck.margin
	if before := worstValue(solved, r, o); ck.margin > maxMargin*max(1, before) {
		return fmt.Sprintf("the solver's solution violates the LMI (residual %.3g on a bound of %.3g)", ck.margin, before), true
	}
	return "", false
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
