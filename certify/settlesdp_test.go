package certify

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/spec"
)

// TestSettleSDP bounds the 16 pieces of a box halved four times by bound
// propagation alone, as the cheap refinement does, and checks that
// settleSDP raises no piece's bound, that every bound it leaves holds at
// points and corners of its piece (checkPiece, not trusting the SDP),
// and that it lowers the largest bound on some of the random pairs.
func TestSettleSDP(t *testing.T) {
	ctx := context.Background()
	lowered := 0
	for seed := range uint64(4) {
		rng, f1, f2, box := closePair(t, seed, 43)
		o := testTask()
		o.in = spec.Inputs{Box: box, Pairing: spec.SameInput}
		o.Samples = 200
		po := o
		po.propOnly = true
		root := rootRegion(box, &o)
		pieces := []piece{{region: root}}
		for range 4 {
			var next []piece
			for _, p := range pieces {
				a, b, ok := p.region.split(root, o.in.Quant)
				if !ok {
					t.Fatalf("seed %d: a piece cannot be split", seed)
				}
				next = append(next, piece{region: a}, piece{region: b})
			}
			pieces = next
		}
		for i := range pieces {
			res := certifyRegion(ctx, f1, f2, &pieces[i].region, &po)
			pieces[i].bound, pieces[i].ok, pieces[i].interval = res.bound, res.ok, res.interval
		}
		ob := searchError(ctx, f1, f2, box, &o)
		c := &Certificate{}
		after := settleSDP(ctx, f1, f2, root, slices.Clone(pieces), StopTarget, &o, &ob, c)
		for i, p := range after {
			if !p.ok || p.bound > pieces[i].bound {
				t.Fatalf("seed %d: piece %d: bound %v (ok %v), %v before", seed, i, p.bound, p.ok, pieces[i].bound)
			}
			checkPiece(t, rng, f1, f2, p, o.q)
		}
		b0, b1 := currentBound(math.Inf(1), pieces, nil), currentBound(math.Inf(1), after, nil)
		if b1 < b0 {
			lowered++
		}
		t.Logf("seed %d: %.5g -> %.5g (found %.5g), %d SDPs", seed, b0, b1, ob.err, c.SDP.Solves)
	}
	if lowered == 0 {
		t.Fatal("no SDP lowered the largest bound")
	}
}
