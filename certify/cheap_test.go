package certify

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

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
		rb, err := boundsOf(f1, f2, &root, &o)
		if err != nil {
			t.Fatal(err)
		}
		ob := searchError(context.Background(), f1, f2, box, &o)
		pieces, stop := cheapRefine(context.Background(), f1, f2, root, rb, &o, &ob, &Certificate{}, time.Now())
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
		rng := rand.New(rand.NewPCG(seed, 29))
		nx := 3 + int(seed)%2
		f1, err := randnet.New(rng, randnet.Sizes(nx, 2, 8, 2))
		if err != nil {
			t.Fatal(err)
		}
		f2 := boundstest.Perturb(rng, f1, 1.0/64)
		box := spec.Box{Lo: make([]float64, nx), Hi: make([]float64, nx)}
		for j := range nx {
			box.Lo[j], box.Hi[j] = -1, 1
		}
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

// TestSettlePastTarget runs Bound with the default options on random
// networks against close copies, the same input, with and without
// Refine.SettleWork, and checks that where the target ratio is reached
// the settled refinement ends as StopTarget too, with more pieces (at
// most settlePieces and a batch) and a bound no larger, whose pieces
// cover the box and hold at points of each.
func TestSettlePastTarget(t *testing.T) {
	settled := 0
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 31))
		nx := 3 + int(seed)%2
		f1, err := randnet.New(rng, randnet.Sizes(nx, 2, 8, 2))
		if err != nil {
			t.Fatal(err)
		}
		f2 := boundstest.Perturb(rng, f1, 1.0/64)
		box := spec.Box{Lo: make([]float64, nx), Hi: make([]float64, nx)}
		for j := range nx {
			box.Lo[j], box.Hi[j] = -1, 1
		}
		in := spec.Inputs{Box: box, Pairing: spec.SameInput}
		opts := DefaultOptions()
		opts.Samples = 200
		at := opts
		at.Refine.SettleWork = 0 // stop at the target
		c0, err := Bound(context.Background(), f1, f2, in, spec.Quantity{}, at)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Bound(context.Background(), f1, f2, in, spec.Quantity{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: at the target %.5g, %d pieces, %v; settled %.5g (found %.5g), %d pieces, %v",
			seed, c0.Bound, len(c0.Pieces), c0.Stopped, c.Bound, c.ObservedError, len(c.Pieces), c.Stopped)
		if c0.Stopped != StopTarget {
			continue
		}
		settled++
		if !c.Certified() || c.Stopped != StopTarget || c.Bound > c0.Bound || c.ObservedError > c.Bound ||
			len(c.Pieces) <= len(c0.Pieces) || len(c.Pieces) > settlePieces+maxBatch {
			t.Fatalf("seed %d: settled: certified %v, stopped %v, bound %v (%v at the target), found %v, %d pieces (%d)",
				seed, c.Certified(), c.Stopped, c.Bound, c0.Bound, c.ObservedError, len(c.Pieces), len(c0.Pieces))
		}
		var pieces []piece
		for _, p := range c.Pieces {
			pieces = append(pieces, piece{region: region{Box1: spec.Box{Lo: p.Lo1, Hi: p.Hi1}}, bound: p.Bound, ok: true})
		}
		checkCover(t, pieces, box)
		for _, p := range pieces {
			checkPiece(t, rng, f1, f2, p, spec.Quantity{})
		}
	}
	if settled == 0 {
		t.Fatal("no instance reached the target: nothing settled")
	}
}
