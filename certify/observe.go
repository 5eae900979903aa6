package certify

import (
	"context"
	"time"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// observation is the largest error found so far and where. Every error in
// it comes from package search, the one home of observed-error search.
type observation struct {
	err    float64
	x1, x2 []float64
	exact  bool // err is the supremum (search's breakpoint enumeration)
}

// searchError returns the largest error search.MaxError finds on the
// input set of o restricted to box (exact for one input and
// piecewise-linear networks), with o.Samples random points and o.Seed.
func searchError(ctx context.Context, f1, f2 *nn.Network, box spec.Box, o *task) observation {
	return searchErrorWith(ctx, f1, f2, box, o, searchEvals(f1, f2, box.Dim(), o.SearchWork), o.Seed)
}

// searchErrorWith is searchError with evals evaluations and the seed.
func searchErrorWith(ctx context.Context, f1, f2 *nn.Network, box spec.Box, o *task, evals int, seed uint64) observation {
	defer add(&o.timing.Search, time.Now())
	so := search.DefaultOptions()
	so.Samples, so.Seed = o.Samples, seed
	so.MaxEvals = evals
	// Where the budget binds, leave most of it to the local searches,
	// which find larger errors than uniform points in many dimensions.
	so.Samples, so.MaxCorners = min(so.Samples, so.MaxEvals/4), min(so.MaxCorners, so.MaxEvals/8)
	// On a quantised network, half the budget and all that the phases
	// before it leave go to the walk on its input grid, which finds the
	// roundings they miss.
	so.AnnealEvals = max(so.AnnealEvals, so.MaxEvals)
	res, err := search.MaxError(ctx, f1, f2, spec.Inputs{Box: box, Pairing: o.in.Pairing, Quant: o.in.Quant}, o.q, so)
	if res == nil || (err != nil && ctx.Err() == nil) {
		// Invalid input, which checkInput has reported already: nothing
		// was observed.
		return observation{}
	}
	return observation{err: res.Error, x1: res.X1, x2: res.X2, exact: res.Exact}
}

// searchMore searches the whole box again, with another seed and
// sdpSearchFactor times the work of the first, after a root SDP whose
// bound is bound was solved: that
// cost seconds, and a search of as much finds errors the first pass's
// cheap one missed, so that the ratio printed is not the search's
// shortfall. On quantised networks of many inputs, unless a bound is
// asked for (Refine.Enough), it runs quantisedSearchSeeds searches of as
// much with seeds of their own, until the bound is within the target
// ratio of the error found: their walks on a grid of so many cells
// (search.Walk) end in different roundings, and the best of them is
// what the ratio needs. A search after the first runs only if one fits in
// what is left of Refine.TimeBudget.
func (ob *observation) searchMore(ctx context.Context, f1, f2 *nn.Network, box spec.Box, o *task, bound float64) {
	work := o.SearchWork
	if work == 0 {
		work = defaultSearchWork
	}
	evals := searchEvals(f1, f2, box.Dim(), sdpSearchFactor*work)
	seeds := 1
	if (f1.Quantised() || f2.Quantised()) && box.Dim() >= quantisedSeedsMinInputs && o.Refine.Enough == 0 {
		seeds = quantisedSearchSeeds
	}
	var took time.Duration // of one search: the next must fit the budget
	for k := range seeds {
		if k > 0 && (ctx.Err() != nil || o.Refine.reached(bound, ob.err) ||
			!o.deadline.IsZero() && time.Until(o.deadline) < took) {
			return
		}
		start := time.Now()
		more := searchErrorWith(ctx, f1, f2, box, o, evals, o.Seed+0x5bd1e995*uint64(k+1))
		took = time.Since(start)
		ob.keep(&search.Result{Error: more.err, X1: more.x1, X2: more.x2})
	}
}

// sdpSearchFactor is the work of one search of searchMore over that of
// the first pass (Options.SearchWork): 5, 2e9 multiply-adds by default.
const sdpSearchFactor = 5

// quantisedSearchSeeds is the number of searches of searchMore on
// quantised networks: on the balls of the int8 digits model, 3 raise the
// median error found by 1.5-2 % over 1 (docs/notes/2026-12-int8-sdp.md).
const quantisedSearchSeeds = 3

// quantisedSeedsMinInputs is the fewest inputs for which searchMore runs
// quantisedSearchSeeds searches: on few inputs one walk covers much of
// the grid, and the searches would cost more than the SDP they follow.
const quantisedSeedsMinInputs = 16

// pieceSearch returns the options of the search on one piece (of dim
// inputs) of the refinement of f1 and f2, the k-th searched (k = 0, 1,
// ...): cheap beside the piece's bound, with a seed of its own, within
// pieceEvals evaluations (a quarter of that in the cheap refinement,
// o.propOnly). It tries the piece's corners (up to 1024; in the cheap
// refinement of quantised networks quantisedPieceCorners), 8 random
// points and one local search of 30 iterations from the best, or, for one
// input and piecewise-linear networks, the piece's exact maximum. Beyond
// the first fullPieceSearches pieces, only every 16th piece gets the local
// search (its cost, some 300 evaluations, is most of a piece's where bound
// propagation is cheap, as on int8 networks, and on the small pieces of a
// long refinement it seldom finds more than the corners and random
// points).
//
// In the cheap refinement of quantised networks the pieces do not walk
// the int8 input grid (search.Options.AnnealEvals) either: the walk takes
// all that the piece's budget leaves, about 10,000 evaluations on the
// 4-input controller where the rest takes some 30, which cut the pieces
// bounded a CPU second tenfold; the root's search walks the grid of the
// whole box.
func pieceSearch(f1, f2 *nn.Network, dim int, o *task, k int) search.Options {
	so := search.DefaultOptions()
	so.Grid, so.Samples, so.Restarts, so.Iters = 0, 8, 1, 30
	so.ZoomStarts, so.ZoomRounds, so.ZoomSamples = 0, 0, 0
	so.Seed = o.Seed + 0x9e3779b97f4a7c15*uint64(k+1)
	if k >= fullPieceSearches && k%16 != 0 {
		so.Restarts = 0
	}
	so.MaxEvals = pieceEvals(f1, f2, dim, o.SearchWork)
	if o.propOnly {
		so.MaxEvals = max(1, so.MaxEvals/4) // as cheap as the piece's bound
		if f1.Quantised() || f2.Quantised() {
			so.MaxCorners = min(so.MaxCorners, quantisedPieceCorners)
			so.AnnealEvals = 0
		}
	}
	return so
}

// fullPieceSearches is the number of pieces of the refinement that are
// all searched with a local search (pieceSearch).
const fullPieceSearches = 512

// observe searches the piece r of the input set with the options so
// (pieceSearch in the refinement) and keeps what it finds if it is larger
// than ob's error (see keep).
func (ob *observation) observe(ctx context.Context, f1, f2 *nn.Network, r *region, o *task, so search.Options) {
	ob.keep(searchPiece(ctx, f1, f2, r, o, so))
}

// searchPiece returns what search finds on the piece r with the options
// so, or nil: an error here is a cancelled ctx (the result is the best so
// far) or invalid input that checkInput has reported already (nil). It
// does not touch any observation, so that pieces can be searched in
// parallel and their results kept in a fixed order.
func searchPiece(ctx context.Context, f1, f2 *nn.Network, r *region, o *task, so search.Options) *search.Result {
	defer add(&o.timing.Search, time.Now())
	var res *search.Result
	if r.Pairing == spec.Independent {
		res, _ = search.MaxErrorIndependent(ctx, f1, f2, r.Box1, r.Box2, o.q, so)
	} else {
		res, _ = search.MaxError(ctx, f1, f2, spec.Inputs{Box: r.Box1, Pairing: r.Pairing, Quant: o.in.Quant}, o.q, so)
	}
	return res
}

// keep replaces ob by the search result res (which may be nil) if res's
// error is larger. A piece's supremum is not the set's, so ob stays exact
// only if it was and the new error is above it by rounding alone.
func (ob *observation) keep(res *search.Result) {
	if res == nil || !(res.Error > ob.err) {
		return
	}
	ob.exact = ob.exact && res.Error <= ob.err*(1+1e-12)
	ob.err, ob.x1, ob.x2 = res.Error, res.X1, res.X2
}

// measureAt returns q's error of f1 and f2 at the inputs of ob (0 where
// either network cannot evaluate them).
func measureAt(f1, f2 *nn.Network, ob *observation, q spec.Quantity) float64 {
	y1, err1 := f1.Eval(ob.x1)
	y2, err2 := f2.Eval(ob.x2)
	if err1 != nil || err2 != nil {
		return 0
	}
	return q.Measure(y1, y2)
}
