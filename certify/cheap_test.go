package certify

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/spec"
)

// TestCheapRefinementSound runs the cheap refinement on random ReLU
// networks against close, int8 (QDQ) and pruned copies, the same input to
// both, and
// checks, without trusting it, that its pieces cover the box (their
// volumes add up to the box's, each inside it) and that every piece's
// bound holds at random points of the piece and at its corners.
func TestCheapRefinementSound(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 28))
		nx := 2 + int(seed)%3
		f1, err := randnet.New(rng, randnet.Sizes(nx, 2, 8, 2))
		if err != nil {
			t.Fatal(err)
		}
		f2 := boundstest.Perturb(rng, f1, 1.0/128)
		lo, hi := make([]float64, nx), make([]float64, nx)
		for j := range nx {
			lo[j], hi[j] = -1+0.5*rng.Float64(), 0.25+0.75*rng.Float64()
		}
		switch seed % 3 {
		case 1:
			f2, _, err = boundstest.Int8(rng, f1, [][]float64{lo, hi})
		case 2:
			f2, _, err = prune.Weights(f1, prune.WeightOptions{Sparsity: 0.2, Scope: prune.Global})
		}
		if err != nil {
			t.Fatal(err)
		}
		box := spec.Box{Lo: lo, Hi: hi}
		o := testTask()
		o.in = spec.Inputs{Box: box, Pairing: spec.SameInput}
		o.Refine.TargetRatio, o.Refine.MaxPieces = 1, 200 // refine to the cap
		if seed%2 == 1 {
			o.q.C = []float64{1, -0.5}
		}
		root := rootRegion(box, &o)
		rb, err := boundsOf(context.Background(), f1, f2, &root, &o)
		if err != nil {
			t.Fatal(err)
		}
		ob := searchError(context.Background(), f1, f2, box, &o)
		pieces, stop := cheapRefine(context.Background(), f1, f2, root, rb, &o, &ob, &Certificate{})
		if len(pieces) < 2 || stop == StopNone {
			t.Fatalf("seed %d: %d pieces, stopped %v: the cheap refinement did not split", seed, len(pieces), stop)
		}
		checkCover(t, pieces, box)
		for _, p := range pieces {
			if !p.ok {
				t.Fatalf("seed %d: a piece has no bound", seed)
			}
			checkPiece(t, rng, f1, f2, p, o.q)
		}
		t.Logf("seed %d: %d pieces, %v, bound %.4g (root %.4g), observed %.4g", seed, len(pieces), stop,
			currentBound(math.Inf(1), pieces, nil), rb.intervalValue(&o), ob.err)
	}
}

// checkCover fails unless the boxes of pieces lie in box and their
// volumes add up to its volume (halvings cover without overlap).
func checkCover(t *testing.T, pieces []piece, box spec.Box) {
	t.Helper()
	vol := func(lo, hi []float64) float64 {
		v := 1.0
		for i := range lo {
			v *= hi[i] - lo[i]
		}
		return v
	}
	sum := 0.0
	for _, p := range pieces {
		b := p.region.Box1
		for i := range b.Lo {
			if b.Lo[i] < box.Lo[i] || b.Hi[i] > box.Hi[i] || b.Lo[i] > b.Hi[i] {
				t.Fatalf("piece %v..%v leaves the box %v..%v", b.Lo, b.Hi, box.Lo, box.Hi)
			}
		}
		sum += vol(b.Lo, b.Hi)
	}
	if whole := vol(box.Lo, box.Hi); math.Abs(sum-whole) > 1e-12*whole {
		t.Fatalf("the pieces' volumes add up to %v, the box's is %v", sum, whole)
	}
}

// checkPiece fails if the quantity q of f1(x) - f2(x), evaluated by
// nn.Network.Eval, exceeds the bound of piece p at one of 300 random
// points of its box or at one of its corners.
func checkPiece(t *testing.T, rng *rand.Rand, f1, f2 *nn.Network, p piece, q spec.Quantity) {
	t.Helper()
	b := p.region.Box1
	n := len(b.Lo)
	x := make([]float64, n)
	for k := range 300 + 1<<n {
		for i := range x {
			if k < 1<<n {
				x[i] = b.Lo[i]
				if k>>i&1 == 1 {
					x[i] = b.Hi[i]
				}
			} else {
				x[i] = b.Lo[i] + rng.Float64()*(b.Hi[i]-b.Lo[i])
			}
		}
		if e := errorAt(t, f1, f2, x, x, q); e > p.bound*(1+1e-9)+1e-12 {
			t.Fatalf("error %v at %v exceeds the bound %v of the piece %v..%v", e, x, p.bound, b.Lo, b.Hi)
		}
	}
}

// TestBoundCheapDefault runs Bound with the default options (the cheap
// refinement first) on random networks against close copies, the same
// input, and checks every piece's bound at points of the piece, the
// pieces' cover, and that the bound is the largest piece bound and at
// least the error found.
func TestBoundCheapDefault(t *testing.T) {
	for seed := range uint64(4) {
		rng, f1, f2, box := closePair(t, seed, 29)
		opts := DefaultOptions()
		opts.Samples = 200
		c, err := Bound(context.Background(), f1, f2, spec.Inputs{Box: box, Pairing: spec.SameInput}, spec.Quantity{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Certified() || c.Stopped == StopNone || c.ObservedError > c.Bound {
			t.Fatalf("seed %d: certified %v, stopped %v, bound %v, found %v", seed, c.Certified(), c.Stopped, c.Bound, c.ObservedError)
		}
		var pieces []piece
		largest := 0.0
		for _, p := range c.Pieces {
			pieces = append(pieces, piece{region: region{Box1: spec.Box{Lo: p.Lo1, Hi: p.Hi1}}, bound: p.Bound, ok: true})
			largest = max(largest, p.Bound)
		}
		if len(pieces) > 0 {
			checkCover(t, pieces, box)
			if largest != c.Bound {
				t.Fatalf("seed %d: bound %v, largest piece bound %v", seed, c.Bound, largest)
			}
		}
		for _, p := range pieces {
			checkPiece(t, rng, f1, f2, p, spec.Quantity{})
		}
		t.Logf("seed %d: bound %.4g, found %.4g, %d pieces, %v", seed, c.Bound, c.ObservedError, len(c.Pieces), c.Stopped)
	}
}

// closePair returns a random network of 3 or 4 inputs (seed, stream),
// a close copy, the box [-1, 1]^inputs and the random source that made
// them.
func closePair(t *testing.T, seed, stream uint64) (*rand.Rand, *nn.Network, *nn.Network, spec.Box) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, stream))
	nx := 3 + int(seed)%2
	f1, err := randnet.New(rng, randnet.Sizes(nx, 2, 8, 2))
	if err != nil {
		t.Fatal(err)
	}
	box := spec.Box{Lo: make([]float64, nx), Hi: make([]float64, nx)}
	for j := range nx {
		box.Lo[j], box.Hi[j] = -1, 1
	}
	return rng, f1, boundstest.Perturb(rng, f1, 1.0/64), box
}

// settleRun bounds a random network (seed, stream) against a close copy
// on [-1, 1]^nx, the same input, with the default options (200 samples)
// as tune leaves them, and with SettleWork 0, and returns both
// certificates and a check of the first's pieces: they cover the box and
// hold at points of each.
func settleRun(t *testing.T, seed, stream uint64, tune func(o *Options, f1, f2 *nn.Network, box spec.Box)) (c, c0 *Certificate, check func()) {
	t.Helper()
	rng, f1, f2, box := closePair(t, seed, stream)
	var err error
	in := spec.Inputs{Box: box, Pairing: spec.SameInput}
	opts := DefaultOptions()
	opts.Samples = 200
	if tune != nil {
		tune(&opts, f1, f2, box)
	}
	at := opts
	at.Refine.SettleWork = 0 // stop at the target or the work budget
	if c0, err = Bound(context.Background(), f1, f2, in, spec.Quantity{}, at); err != nil {
		t.Fatal(err)
	}
	if c, err = Bound(context.Background(), f1, f2, in, spec.Quantity{}, opts); err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d: not settled %.5g, %d pieces, %v; settled %.5g (found %.5g), %d pieces, %v",
		seed, c0.Bound, len(c0.Pieces), c0.Stopped, c.Bound, c.ObservedError, len(c.Pieces), c.Stopped)
	return c, c0, func() {
		var pieces []piece
		for _, p := range c.Pieces {
			pieces = append(pieces, piece{region: region{Box1: spec.Box{Lo: p.Lo1, Hi: p.Hi1}}, bound: p.Bound, ok: true})
		}
		checkCover(t, pieces, box)
		for _, p := range pieces {
			checkPiece(t, rng, f1, f2, p, spec.Quantity{})
		}
	}
}

// TestSettlePastTarget runs Bound with the default options on random
// networks against close copies, the same input, with and without
// Refine.SettleWork, and checks that where the target ratio is reached
// the settled refinement ends as StopTarget too, with more pieces (at
// most settlePieces and a batch) and a bound no larger, whose pieces
// cover the box and hold at points of each.
func TestSettlePastTarget(t *testing.T) {
	settled := 0
	for seed := range uint64(4) {
		c, c0, check := settleRun(t, seed, 31, nil)
		if c0.Stopped != StopTarget {
			continue
		}
		settled++
		if !c.Certified() || c.Stopped != StopTarget || c.Bound > c0.Bound || c.ObservedError > c.Bound ||
			len(c.Pieces) <= len(c0.Pieces) || len(c.Pieces) > settlePieces+maxBatch {
			t.Fatalf("seed %d: settled: certified %v, stopped %v, bound %v (%v at the target), found %v, %d pieces (%d)",
				seed, c.Certified(), c.Stopped, c.Bound, c0.Bound, c.ObservedError, len(c.Pieces), len(c0.Pieces))
		}
		check()
	}
	if settled == 0 {
		t.Fatal("no instance reached the target: nothing settled")
	}
}

// TestSettlePastWorkBudget runs Bound on random networks against close
// copies, the same input, with a work budget that ends the cheap
// refinement before the target ratio, with and without Refine.SettleWork,
// and checks that a float pair settles past the work budget: it still
// ends for the work budget (or at the target), with more pieces and a
// bound no larger, whose pieces cover the box and hold at points of
// each.
func TestSettlePastWorkBudget(t *testing.T) {
	// About 16 splits before the work budget (the root's propWork is over
	// Split sub-boxes, a piece's over one), three times as much work
	// settling; a target the pieces cannot reach.
	tune := func(o *Options, f1, f2 *nn.Network, box spec.Box) {
		o.Refine.TargetRatio = 1
		o.Refine.MaxPropWork = 2 * propWork(f1, f2, &region{Box1: box}, &task{Options: *o})
		o.Refine.SettleWork = 3 * o.Refine.MaxPropWork
	}
	settled := 0
	for seed := range uint64(4) {
		c, c0, check := settleRun(t, seed, 37, tune)
		if c0.Stopped != StopCostly {
			continue
		}
		if c0.SDPSkipped.Why != SkipPieces {
			t.Fatalf("seed %d: stopped by the work budget, SDP skipped %q: want %v", seed, c0.SDPSkipped, SkipPieces)
		}
		settled++
		if !c.Certified() || c.Stopped != StopCostly && c.Stopped != StopTarget || c.Bound > c0.Bound ||
			c.ObservedError > c.Bound || len(c.Pieces) <= len(c0.Pieces) {
			t.Fatalf("seed %d: settled: certified %v, stopped %v, bound %v (%v at the work budget), found %v, %d pieces (%d)",
				seed, c.Certified(), c.Stopped, c.Bound, c0.Bound, c.ObservedError, len(c.Pieces), len(c0.Pieces))
		}
		check()
	}
	if settled == 0 {
		t.Fatal("no instance stopped for the work budget: nothing settled")
	}
}
