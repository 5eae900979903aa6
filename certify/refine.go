package certify

import (
	"container/heap"
	"context"
	"time"

	"github.com/nnbound/nnbound/nn"
)

// piece is a leaf of the refinement.
type piece struct {
	region   region
	bound    float64
	ok       bool
	interval bool // the bound is the output enclosure's
	fellBack bool // ... because the piece's SDP failed
	final    bool // cannot or need not be split further
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

// refine splits the input set (branch and bound): the piece with the
// largest bound is split in two and each half certified, until the largest
// bound is within Refine.TargetRatio of the observed error, or the budget
// of solves or time is used. A piece whose halves cannot both be certified
// keeps its own bound. The pieces cover the root region, so the largest
// bound over them is a bound on the whole set.
func refine(ctx context.Context, f1, f2 *nn.Network, root region, rp regionResult, o *task,
	ob *observation, c *Certificate, start time.Time) []piece {
	h := &pieceHeap{{region: root, bound: rp.bound, ok: rp.ok, interval: rp.interval, fellBack: rp.fellBack}}
	var done []piece
	searched := 0 // pieces searched for the observed error
	for h.Len() > 0 {
		top := (*h)[0]
		if top.ok && top.bound <= o.Refine.TargetRatio*ob.err {
			break
		}
		if c.SDP.Solves+2 > o.Refine.MaxPieces || ctx.Err() != nil {
			break
		}
		if o.Refine.TimeBudget > 0 && time.Since(start) > o.Refine.TimeBudget {
			c.TimeBudgetHit = true
			break
		}
		heap.Pop(h)
		a, b, ok := top.region.split(root, o.in.Quant)
		if !ok {
			top.final = true
			done = append(done, top)
			continue
		}
		ra := certifyRegion(ctx, f1, f2, &a, o)
		rb := certifyRegion(ctx, f1, f2, &b, o)
		c.SDP.Solves += 2
		c.TimeBudgetHit = c.TimeBudgetHit || ra.budgetHit || rb.budgetHit
		c.SDP.Iterations += ra.iters + rb.iters
		c.SDP.Time += ra.time + rb.time
		ob.observe(ctx, f1, f2, &a, o, pieceSearch(o, searched))
		ob.observe(ctx, f1, f2, &b, o, pieceSearch(o, searched+1))
		searched += 2
		if !ra.ok || !rb.ok {
			if top.ok {
				top.final = true
				done = append(done, top)
				continue
			}
		}
		heap.Push(h, piece{region: a, bound: ra.bound, ok: ra.ok, interval: ra.interval, fellBack: ra.fellBack})
		heap.Push(h, piece{region: b, bound: rb.bound, ok: rb.ok, interval: rb.interval, fellBack: rb.fellBack})
	}
	return append(done, (*h)...)
}
