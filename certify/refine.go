package certify

import (
	"bytes"
	"container/heap"
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// piece is a leaf of the refinement.
type piece struct {
	region   region
	bound    float64
	ok       bool
	interval bool // the bound is the output enclosure's
	fellBack bool // ... because the piece's SDP failed
	final    bool // cannot or need not be split further
	// cased says the piece is bounded case by case (inputCases) already,
	// or need not be (laterCases).
	cased bool
}

// half returns the piece of the half r of p with the result res: its
// bound is p's where that is smaller (p's holds on its halves, and the
// bound of a half may be larger than its parent's: bound propagation is
// not monotone in the box).
func (p piece) half(r region, res regionResult) piece {
	h := piece{region: r, bound: res.bound, ok: res.ok, interval: res.interval, fellBack: res.fellBack}
	h.region.next, h.region.within = res.next, res.prior
	if p.ok && res.ok && p.bound < res.bound {
		h.bound, h.interval, h.fellBack = p.bound, p.interval, p.fellBack
	}
	return h
}

// pieceHeap is a max-heap of pieces by bound.
type pieceHeap []piece

func (h pieceHeap) Len() int           { return len(h) }
func (h pieceHeap) Less(i, j int) bool { return h[i].bound > h[j].bound }
func (h pieceHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pieceHeap) Push(x any)        { *h = append(*h, x.(piece)) }
func (h *pieceHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	*h = old[:len(old)-1]
	return p
}

// maxBatch is the largest number of pieces split at once (see batchSize).
const maxBatch = 16

// batchSize returns how many of the n pieces of the refinement are split
// at once: one while there are fewer than 32, so that a small number of
// pieces is spent best first, then up to
// maxBatch, a sixteenth of the pieces. It depends on n alone, never on
// the number of processors, so that the pieces and the bound are the
// same on any machine.
func batchSize(n int) int {
	return max(1, min(maxBatch, n/16))
}

// refine splits the input set (branch and bound), an anytime loop: the
// pieces with the largest bounds (batchSize of them) are split in two and
// each half certified, until the largest bound is within
// Refine.TargetRatio of the observed error, a doubling of the pieces
// gains too little (gainRule), or the cap of pieces, the work of the
// pieces bounded by SDPs or by propagation alone (Refine.MaxSDPWork,
// MaxPropWork) or the time budget is reached; it returns the pieces and why it stopped. A piece whose halves
// cannot both be certified keeps its own bound. The pieces cover the root
// region, so the largest bound over them is a bound on the whole set. The
// halves of a batch are certified and searched in parallel, on up to
// GOMAXPROCS goroutines, and their results taken in a fixed order: the
// outcome does not depend on the number of processors or on timing (but
// for the time budget).
func refine(ctx context.Context, f1, f2 *nn.Network, root region, rp regionResult, o *task,
	ob *observation, c *Certificate) ([]piece, Stop) {
	h := &pieceHeap{{region: root, bound: rp.bound, ok: rp.ok, interval: rp.interval, fellBack: rp.fellBack, cased: true}}
	rootBound := math.Inf(1)
	if rp.ok {
		rootBound = rp.bound
	}
	var done []piece
	searched := 0 // pieces searched for the observed error
	var w work    // of the pieces (pieceWork)
	if rp.iters > 0 {
		// The first split is taken to cost the root twice.
		w.lastSDP = 2 * (sdpWork(rp) + propWork(f1, f2, &root, o))
	}
	free := root.freeCoords()
	if o.Refine.MaxPieces == 0 && free > MaxRefineInputs && root.Pairing != spec.QuantisedInput &&
		!(rp.ok && o.Refine.reached(rp.bound, ob.err)) {
		return []piece{(*h)[0]}, StopNoGain
	}
	gain := newGainRule(c.SDP.Solves, rootBound-ob.err, free)
	if o.propOnly {
		// The pieces stand for the Split sub-boxes the root was not
		// split into (unsplitRoot): they take about as many splits to
		// improve on a split root's bound, and halving
		// every free coordinate of a small box once takes 2^free pieces.
		gain.next = max(gain.next, 2*o.Split)
		if free <= MaxSplitInputs {
			gain.next = max(gain.next, 1<<free)
		}
	}
	o.progress(rootBound, ob, 1, c.SDP.Solves)
	canSettle := o.propOnly && o.Refine.MaxPieces == 0 && o.Refine.SettleWork > 0 && free <= MaxSplitInputs
	// A float pair settles past the work budget too (settleCostly).
	settleCostly := canSettle && !f1.Quantised() && !f2.Quantised()
	to := o          // o, or its settling copy (settleTask) once the target or the work budget is reached
	from := StopNone // which of the two began the settling
	for {
		if to != o && len(done)+h.Len() >= settlePieces {
			return append(done, (*h)...), settledStop(from, StopCap, currentBound(rootBound, done, *h), ob.err, &o.Refine)
		}
		// The next split is taken to cost what the last did.
		batch, final, stop := takeBatch(ctx, f1, f2, h, root, to, ob, c, w)
		done = append(done, final...)
		if len(batch) == 0 {
			switch {
			case to == o && len(done)+h.Len() < settlePieces && (stop == StopTarget && canSettle || stop == StopCostly && settleCostly):
				to, from = settleTask(o, stop), stop
			case stop != StopNone && to != o:
				return append(done, (*h)...), settledStop(from, stop, currentBound(rootBound, done, *h), ob.err, &o.Refine)
			case stop != StopNone:
				return append(done, (*h)...), settled(stop, currentBound(rootBound, done, *h), ob.err, &o.Refine)
			case len(final) == 0:
				return append(done, (*h)...), StopExhausted
			}
			continue
		}
		// Settling, or past half the work budget of a pair that would
		// settle past it (few pieces yet), the pieces are not searched.
		noSearch := to != o || settleCostly && o.Refine.MaxPropWork > 0 && w.prop >= o.Refine.MaxPropWork/2 &&
			len(done)+h.Len() < settlePieces
		for i := range batch {
			batch[i].seeds = [2]int{searched + 2*i, searched + 2*i + 1}
			batch[i].noSearch = noSearch
		}
		searched += 2 * len(batch)
		runBatch(ctx, f1, f2, batch, to, ob.err)
		for _, s := range batch {
			if s.cases {
				h.keepCases(s, c)
				continue
			}
			ra, rb := s.res[0], s.res[1]
			if !ra.ok && ra.status == Cancelled || !rb.ok && rb.status == Cancelled {
				heap.Push(h, s.top) // cut short: the piece keeps its bound
				continue
			}
			c.SDP.Solves += 2
			c.Bounded += 2
			c.TimeBudgetHit = c.TimeBudgetHit || ra.budgetHit || rb.budgetHit
			c.SDP.Iterations += ra.iters + rb.iters
			w.add(pieceWork(f1, f2, s, o))
			c.SDP.Time += ra.time + rb.time
			ob.keep(s.found[0])
			ob.keep(s.found[1])
			if (!ra.ok || !rb.ok) && s.top.ok {
				s.top.final = true
				done = append(done, s.top)
				continue
			}
			for k, res := range s.res {
				hp := s.top.half(s.halves[k], res)
				if to != o && hp.bound < res.bound {
					// Settling, the half kept its parent's bound: the
					// coordinate the smear chose did not pay, halve the
					// widest next (the smear would choose it again).
					hp.region.next = 0
				}
				heap.Push(h, hp)
			}
		}
		b := currentBound(rootBound, done, *h)
		o.progress(b, ob, len(done)+h.Len(), c.SDP.Solves)
		if gain.stop(c.SDP.Solves, b-ob.err, &o.Refine) && to == o && !o.Refine.reached(b, ob.err) {
			return append(done, (*h)...), StopNoGain
		}
	}
}

// work is what the pieces of a refinement have cost so far, in the
// units of sdpWork and propWork: sdp of the pieces whose SDPs were
// solved (with their bound propagation), prop of those bounded by bound
// propagation alone (quantised networks, the cheap refinement, SDPs
// skipped); lastSDP and lastProp are those of the last split, which the
// next is taken to cost.
type work struct {
	sdp, prop, lastSDP, lastProp float64
}

// add adds the work of one split, u.sdp and u.prop, to w.
func (w *work) add(u work) {
	w.sdp += u.sdp
	w.prop += u.prop
	w.lastSDP, w.lastProp = u.sdp, u.prop
}

// pieceWork returns the work of the halves of s: sdpWork and propWork of
// those whose SDPs were solved, propWork of the others.
func pieceWork(f1, f2 *nn.Network, s *halving, o *task) work {
	var w work
	for k, r := range s.res {
		p := propWork(f1, f2, &s.halves[k], o)
		if r.iters > 0 {
			w.sdp += sdpWork(r) + p
		} else {
			w.prop += p
		}
	}
	return w
}

// keepCases pushes the piece of s, a re-bounding by its cases, back on
// h with the smaller of its bounds (both hold on it), counting one solve.
func (h *pieceHeap) keepCases(s *halving, c *Certificate) {
	p, res := s.top, s.res[0]
	c.SDP.Solves++
	c.Bounded++
	p.cased = true
	if res.ok && (!p.ok || res.bound < p.bound) {
		p.bound, p.ok, p.interval, p.fellBack = res.bound, true, res.interval, res.fellBack
	}
	heap.Push(h, p)
}

// halving is one piece of a batch: the piece, its halves, and what was
// found on them; or, with cases, the piece itself bounded case by case
// (laterCases), in halves[0] and res[0].
type halving struct {
	cases bool
	// noSearch skips the searches of the halves (settling, settleTask).
	noSearch bool
	top      piece
	halves   [2]region
	seeds    [2]int // the halves' pieceSearch numbers
	res      [2]regionResult
	found    [2]*search.Result
	timing   [2]Timing
	// log and solverLog hold what each half wrote to o.Log and
	// o.Solver.Log.
	log, solverLog [2]bytes.Buffer
}

// run certifies half k of s with a copy of o whose timing and logs are
// s's own, and searches it for an error above known unless its bound
// shows there is none.
func (s *halving) run(ctx context.Context, f1, f2 *nn.Network, k int, o *task, known float64) {
	ok := *o
	ok.timing = &s.timing[k]
	if o.Log != nil {
		ok.Log = &s.log[k]
	}
	if o.Solver.Log != nil {
		ok.Solver.Log = &s.solverLog[k]
		if o.Solver.Log == o.Log {
			ok.Solver.Log = ok.Log // one stream, in the order written
		}
	}
	r := &s.halves[k]
	if s.cases {
		s.res[k] = certifyRegion(ctx, f1, f2, r, &ok) // searched already
		return
	}
	ok.deferCells = true
	s.res[k] = certifyRegion(ctx, f1, f2, r, &ok)
	if s.noSearch || s.res[k].ok && s.res[k].bound <= known {
		return // no error on r is larger than one found already, or settling
	}
	s.found[k] = searchPiece(ctx, f1, f2, r, &ok, pieceSearch(f1, f2, r.Box1.Dim(), &ok, s.seeds[k]))
}

// quantisedPieceCorners caps the box corners searched on a piece of the
// cheap refinement of quantised networks (search.Options.MaxCorners;
// 2^d of them otherwise, 256 on 8 inputs). The error of an int8 copy is
// the float error plus rounding staircases, whose largest values have no
// reason to sit at a piece's corners; the corners of the whole box, where
// saturation puts them, are searched at the root; and each corner of a
// piece is one of up to 2^d pieces', searched again with each. Without
// the cap the corners took a fifth of the CPU on an 8-input MLP (mlp8),
// for the same bounds.
const quantisedPieceCorners = 16

// takeBatch pops the pieces to split next off h: up to batchSize of them,
// while the largest bound is above Refine.TargetRatio times the observed
// error and the cap of pieces, the SDP work (work: with the batch's,
// estimated) and the time budget allow; when it takes none for one of
// those, stop says which. A piece that cannot be split
// is returned in final.
func takeBatch(ctx context.Context, f1, f2 *nn.Network, h *pieceHeap, root region, o *task, ob *observation, c *Certificate,
	w work) (batch []*halving, final []piece, stop Stop) {
	size := batchSize(h.Len())
	bounded := c.Bounded // with the batch's
	for len(batch) < size && h.Len() > 0 {
		top := (*h)[0]
		switch {
		case ctx.Err() != nil: // a signal says so whatever else holds
			stop = StopCancelled
		case top.ok && o.Refine.reached(top.bound, ob.err):
			stop = o.Refine.ending(top.bound, ob.err)
		case bounded+2 > o.Refine.maxPieces():
			stop = StopCap
		case len(batch) == 0 && o.Refine.costly(w):
			stop = StopCostly
		case o.pastDeadline():
			c.TimeBudgetHit = true
			stop = StopBudget
		}
		if stop != StopNone {
			break
		}
		heap.Pop(h)
		if !top.cased && laterCases(f1, f2, &top.region, o) {
			batch = append(batch, &halving{cases: true, top: top, halves: [2]region{top.region}})
			bounded++
			continue
		}
		a, b, ok := top.region.split(root, o.in.Quant)
		if !ok {
			top.final = true
			final = append(final, top)
			continue
		}
		bounded += 2
		batch = append(batch, &halving{top: top, halves: [2]region{a, b}})
	}
	return batch, final, stop
}

// runBatch certifies and searches the halves of every split of batch, on
// up to GOMAXPROCS goroutines, for errors above known. Each works on a copy of o with timing and
// logs of its own, which are added to o's in the batch's order.
func runBatch(ctx context.Context, f1, f2 *nn.Network, batch []*halving, o *task, known float64) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 2*len(batch)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				s := batch[j/2]
				s.run(ctx, f1, f2, j%2, o, known)
			}
		}()
	}
	for j := range 2 * len(batch) {
		if j%2 == 0 || !batch[j/2].cases {
			jobs <- j
		}
	}
	close(jobs)
	wg.Wait()
	for _, s := range batch {
		for k := range 2 {
			o.timing.addAll(s.timing[k])
			if s.log[k].Len() > 0 {
				o.Log.Write(s.log[k].Bytes())
			}
			if s.solverLog[k].Len() > 0 {
				o.Solver.Log.Write(s.solverLog[k].Bytes())
			}
		}
	}
}
