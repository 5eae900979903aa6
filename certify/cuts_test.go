package certify

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestCutRounds certifies the 2-norm of random ReLU networks against
// their saturating int8 copies on their root SDP alone, with and without
// the cut rounds (qc.KindFactProduct), and checks that the cuts never
// raise the SDP's bound, lower it on some network, are named in the note
// when they do, and that both bounds hold at random inputs and box
// corners.
func TestCutRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	lowered := 0
	for trial := range 2 {
		sizes := []int{2, 5 + rng.IntN(3), 5 + rng.IntN(3), 3}
		f := boundstest.Network(rng, sizes, 1, nn.Activation{Kind: nn.ReLU})
		box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
		r, err := bounds.Calibrate(f, box, bounds.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		for k := range r.Pre {
			r.Pre[k][0], r.Pre[k][1] = r.Pre[k][0]*0.5, r.Pre[k][1]*0.5 // saturating
		}
		fq, err := quantise.Int8(f, r, quantise.Int8Options{Bits: 8, PerChannel: trial%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		in, q := spec.Inputs{Box: box, Pairing: spec.SameInput}, spec.Quantity{}
		var sdpBound [2]float64
		for i, kinds := range []qc.KindSet{DefaultKinds().Without(qc.KindFactProduct), DefaultKinds()} {
			opts := DefaultOptions()
			opts.Refine.TimeBudget, opts.Refine.MaxPieces, opts.Kinds = 0, 1, kinds
			opts.SearchWork /= 100 // the search for the error found is most of the time otherwise
			c, err := Bound(context.Background(), f, fq, in, q, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !c.Certified() {
				t.Fatalf("trial %d, kinds %d: not certified: %s", trial, i, c.Reason)
			}
			sdpBound[i] = c.SDPBound
			cut := strings.Contains(c.Note, "products of linear facts")
			if i == 0 && (cut || c.SDP.Solves != 1) || i == 1 && cut != (c.SDPBound < sdpBound[0]) {
				t.Errorf("trial %d, kinds %d: %d solves, SDP bound %v (%v without cuts), note %q",
					trial, i, c.SDP.Solves, c.SDPBound, sdpBound[0], c.Note)
			}
			for n := range 300 + 4 {
				x := boundstest.Uniform(rng, box.Lo, box.Hi)
				if n < 4 {
					x = []float64{box.Lo[0] + float64(n&1)*2, box.Lo[1] + float64(n>>1)*2}
				}
				y1, _ := f.Eval(x)
				y2, _ := fq.Eval(x)
				if e := q.Measure(y1, y2); e > c.SDPBound*(1+1e-12) {
					t.Fatalf("trial %d, kinds %d: error %v at %v above the SDP's bound %v", trial, i, e, x, c.SDPBound)
				}
			}
		}
		t.Logf("trial %d: sizes %v, root SDP %.5g without cuts, %.5g with", trial, sizes, sdpBound[0], sdpBound[1])
		if sdpBound[1] > sdpBound[0] {
			t.Errorf("trial %d: the cuts raised the SDP's bound from %v to %v", trial, sdpBound[0], sdpBound[1])
		}
		if sdpBound[1] < 0.99*sdpBound[0] {
			lowered++
		}
	}
	if lowered == 0 {
		t.Error("the cuts lowered no bound by 1 %")
	}
}

// TestStoppedKeepsCertified checks that an SDP the time budget stops
// after a checked result keeps that result (cutRounds).
func TestStoppedKeepsCertified(t *testing.T) {
	var pr sdpProgress
	pr.built(10, 20, time.Millisecond)
	if res := pr.stopped(time.Second); res.ok || !res.budgetHit {
		t.Fatalf("nothing checked yet: ok %v, budget hit %v", res.ok, res.budgetHit)
	}
	pr.certified(regionResult{ok: true, status: Certified, bound: 2.5})
	res := pr.stopped(time.Second)
	if !res.ok || res.bound != 2.5 || !res.budgetHit {
		t.Fatalf("after a checked result: ok %v, bound %v, budget hit %v", res.ok, res.bound, res.budgetHit)
	}
}

func TestCutsCanReach(t *testing.T) {
	for _, tc := range []struct {
		bound, enough float64
		want          bool
	}{
		{40, 50, false},  // enough already
		{60, 50, true},   // within the rounds' gain
		{100, 50, false}, // too far above: no round brings it there
	} {
		if got := cutsCanReach(tc.bound, tc.enough); got != tc.want {
			t.Errorf("cutsCanReach(%v, %v) = %v, want %v", tc.bound, tc.enough, got, tc.want)
		}
	}
}
