package certify

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/qc"
)

// Cut rounds (the int8 SDP on the whole input set).
//
// The solver's dual block Y of the LMI is a moment matrix: Y/Y_11 stands
// for E[eta eta^T] over a pseudo-distribution of the points eta of the
// region, and every term of the LMI holds on it, E[(a^T eta)(b^T eta)] =
// a^T Y b / Y_11 >= 0. The products of two linear facts a, b >= 0 of
// different neurons (qc.Facts, qc.Product) hold at every point too, but
// not in general on Y: on the whole box [0, 1]^64 of the int8 digits
// model about 21,000 of the 280,000 products are violated, the largest
// by as much as the squared bound's 1 %. Each round adds the most
// violated products as terms and solves again; every round's answer is
// checked independently like the first, and the smallest checked bound is
// kept.
const (
	// maxCutRounds is the most rounds of cuts after the first solve.
	maxCutRounds = 4
	// cutsPerRound is how many products a round adds (the Schur
	// complement grows with them: 600 a round gave a little more per
	// round at three times the solve time).
	cutsPerRound = 200
	// cutMinGain ends the rounds when one lowers the bound by less than
	// this fraction.
	cutMinGain = 0.01
	// cutMinRatio: no round runs once the bound is within this factor of
	// the error observed. Closer, what is left is mostly the model's, not
	// the relaxation's (the int8 digits balls: bound/found 1.4-1.9, the
	// SDP 2-8 % above the free-rounding model's floor; a round there
	// gained less than 0.01 % for 8 times the CPU of the first solve).
	cutMinRatio = 2
	// cutMaxGain is more than the rounds have lowered a bound by: 17 % in
	// 4 rounds and 21 % in 8 on the int8 digits box (docs/notes/2026-12-int8-sdp.md).
	cutMaxGain = 0.25
)

// cutsCanReach reports whether rounds of cuts are worth running for a
// bound asked for, enough: the bound is above it but within what the
// rounds can gain (cutMaxGain). Below it, the bound is enough already;
// far above it (allocate's candidates of too few bits), no round brings it
// there, and each costs more than the first solve.
func cutsCanReach(bound, enough float64) bool {
	return bound > enough && bound*(1-cutMaxGain) <= enough
}

// cutRounds tightens the checked result res of m's SDP by rounds of cuts
// (see above), starting from the moment block y of its solve, unless the
// bound is already within cutMinRatio of the error observed, or is not
// what rounds can bring to Refine.Enough, the bound asked for
// (cutsCanReach); pr is told each better result, so that the time budget
// keeps it.
func cutRounds(ctx context.Context, m *lmi, r *region, rb *regionBounds, o *task, y []float64, res *regionResult, pr *sdpProgress) {
	added := map[[2]int]bool{}
	for range maxCutRounds {
		pr.certified(*res)
		if o.observed > 0 && res.bound <= cutMinRatio*o.observed || o.Refine.Enough > 0 && !cutsCanReach(res.bound, o.Refine.Enough) {
			return
		}
		cuts := m.violatedProducts(y, cutsPerRound, added)
		if len(cuts) == 0 {
			return
		}
		m.terms = append(m.terms, cuts...)
		sp := m.problem(weights(r, o), rb.expected(o))
		var round regionResult
		ck, sol, ok := solveChecked(ctx, m, sp, r, o, &round)
		res.iters, res.time, res.cutSolves = res.iters+round.iters, res.time+round.time, res.cutSolves+1
		res.spent.Solve, res.spent.Check = res.spent.Solve+round.spent.Solve, res.spent.Check+round.spent.Check
		if !ok {
			// The last checked answer stands; say so if the time budget
			// stopped the round.
			res.budgetHit = res.budgetHit || errors.Is(ctx.Err(), context.DeadlineExceeded)
			return
		}
		bound := outward.SqrtUp(worstValue(ck.gammas, r, o))
		if !(bound < res.bound) {
			return
		}
		gain := 1 - bound/res.bound
		res.gammas, res.sdpGammas, res.margin, res.bound = ck.gammas, ck.gammas, ck.margin, bound
		res.vars, res.cuts = len(sp.C), res.cuts+len(cuts)
		res.sdpStatus, res.objective = round.sdpStatus, round.objective
		if gain < cutMinGain {
			return
		}
		y = sol.Y[0]
	}
	pr.certified(*res)
}

// violatedProducts returns up to k products of two of m's facts, not in
// added (and marks them), that the moment block y of a solve of m's SDP
// violates, the most violated first: a^T Y b < 0 in the SDP's
// coordinates (sdpForm).
func (m *lmi) violatedProducts(y []float64, k int, added map[[2]int]bool) []qc.Term {
	scale := m.scales()
	pos, size := m.sdpCoords()
	if len(y) != size*size {
		return nil
	}
	forms := make([]qc.Form, len(m.facts))
	ya := make([][]float64, len(m.facts)) // Y a for each fact a
	for f, fact := range m.facts {
		forms[f] = sdpForm(fact.F, scale, pos)
		v := make([]float64, size)
		for t, c := range forms[f].Idx {
			row, a := y[c*size:(c+1)*size], forms[f].Val[t]
			for j := range v {
				v[j] += a * row[j]
			}
		}
		ya[f] = v
	}
	type product struct {
		v    float64
		a, b int
	}
	var bad []product
	for a := range forms {
		for b := a + 1; b < len(forms); b++ {
			v := 0.0
			for t, c := range forms[b].Idx {
				v += forms[b].Val[t] * ya[a][c]
			}
			if v < 0 && !added[[2]int{a, b}] {
				bad = append(bad, product{v, a, b})
			}
		}
	}
	slices.SortFunc(bad, func(p, q product) int {
		return cmp.Or(cmp.Compare(p.v, q.v), cmp.Compare(p.a, q.a), cmp.Compare(p.b, q.b))
	})
	var ts []qc.Term
	for _, p := range bad[:min(k, len(bad))] {
		added[[2]int{p.a, p.b}] = true
		ts = append(ts, qc.Product(m.facts[p.a], m.facts[p.b]))
	}
	return ts
}
