package certify

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestQuantisedBound certifies random ReLU networks against their int8
// copies (both weight schemes, narrowed ranges so that the quantisers
// saturate, with and without requantisation slack) and checks that the
// SDP, with the int8 quadratic constraints, is used for the 2-norm of two
// outputs only, that the bound holds at random inputs and corners, and
// that it is not below the observed error.
func TestQuantisedBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	for trial := range 8 {
		sizes := []int{1 + rng.IntN(2), 4 + rng.IntN(4), 4 + rng.IntN(4), 2 + rng.IntN(2)}
		f := boundstest.Network(rng, sizes, 1, nn.Activation{Kind: nn.ReLU})
		box := spec.Box{Lo: make([]float64, sizes[0]), Hi: make([]float64, sizes[0])}
		for i := range box.Lo {
			box.Lo[i], box.Hi[i] = -1, 1
		}
		r, err := bounds.Calibrate(f, box, bounds.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		for k := range r.Pre {
			if trial%4 != 1 {
				r.Pre[k][0], r.Pre[k][1] = r.Pre[k][0]*0.5, r.Pre[k][1]*0.5 // saturating
			}
		}
		fq, err := quantise.Int8(f, r, quantise.Int8Options{Bits: 8, PerChannel: trial%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		opts := DefaultOptions()
		opts.Refine.TimeBudget, opts.Refine.MaxPieces = 0, 16
		// The observed error's search, not the bound, is most of the time
		// on networks this small: a hundredth of its default work keeps
		// the trials on the same paths (the assertions below do not depend
		// on it).
		opts.SearchWork /= 100
		if trial%3 == 2 {
			opts.RequantSlack = 1
		}
		in, q := spec.Inputs{Box: box, Pairing: spec.SameInput}, spec.Quantity{}
		if trial%4 == 3 {
			q.Norm = spec.NormInf
		}
		c, err := Bound(context.Background(), f, fq, in, q, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Problem(f, fq, in, q, opts); err != nil && !errors.Is(err, nn.ErrQuantised) {
			t.Fatalf("trial %d: the SDP of a quantised pair: %v", trial, err)
		}
		joint := q.Norm == spec.Norm2 && sizes[3] > 1
		if !c.Certified() || c.Bound < c.ObservedError || (!joint && (c.SDP.Solves != 0 || c.Source != MethodPropagation)) {
			t.Fatalf("trial %d: certified %v, %d SDP solves, bound %v, observed %v, source %v (%s)",
				trial, c.Certified(), c.SDP.Solves, c.Bound, c.ObservedError, c.Source, c.Reason)
		}
		if joint && c.SDPBound < math.Inf(1) && !strings.HasPrefix(c.Note, "int8 QCs") {
			t.Errorf("trial %d: the root SDP solved, but the note is %q", trial, c.Note)
		}
		t.Logf("trial %d: sizes %v, bound %.4g (SDP %.4g, propagation %.4g), found %.4g, %d solves; %s",
			trial, sizes, c.Bound, c.SDPBound, c.IntervalBound, c.ObservedError, c.SDP.Solves, c.Note)
		for n := range 500 + 1<<sizes[0] {
			x := boundstest.Uniform(rng, box.Lo, box.Hi)
			if n < 1<<sizes[0] { // the corners
				for i := range x {
					x[i] = box.Lo[i]
					if n>>i&1 == 1 {
						x[i] = box.Hi[i]
					}
				}
			}
			y1, _ := f.Eval(x)
			y2, _ := fq.Eval(x)
			if e := q.Measure(y1, y2); e > c.Bound*(1+1e-12) || e > c.SDPBound*(1+1e-12) {
				t.Fatalf("trial %d: error %v at %v above the bound %v or the SDP's %v", trial, e, x, c.Bound, c.SDPBound)
			}
		}
	}
}

// TestPieceSearchQuantised checks that the pieces of the cheap refinement
// of a quantised pair search few corners and do not walk the int8 input
// grid (pieceSearch), and that other pieces keep the search's walk.
func TestPieceSearchQuantised(t *testing.T) {
	f, fq := int8Pair(t, rand.New(rand.NewPCG(3, 9)), 4, 4)
	for _, c := range []struct {
		name     string
		f2       *nn.Network
		propOnly bool
		walk     bool
	}{
		{"int8 cheap", fq, true, false},
		{"int8 sdp", fq, false, true},
		{"float cheap", f, true, true},
	} {
		o := &task{Options: DefaultOptions(), propOnly: c.propOnly}
		so := pieceSearch(f, c.f2, 4, o, 3)
		if walk := so.AnnealEvals > 0; walk != c.walk {
			t.Errorf("%s: AnnealEvals %d, want a walk: %v", c.name, so.AnnealEvals, c.walk)
		}
		if c.propOnly && c.f2 == fq && so.MaxCorners > quantisedPieceCorners {
			t.Errorf("%s: MaxCorners %d, want at most %d", c.name, so.MaxCorners, quantisedPieceCorners)
		}
		if so.MaxEvals < 1 {
			t.Errorf("%s: MaxEvals %d", c.name, so.MaxEvals)
		}
	}
}
