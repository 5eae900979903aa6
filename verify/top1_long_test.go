package verify

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestTop1CertifiedNotContradicted decides the balls of radius 4/255
// about every tenth digits test image (every image, 450 balls, with
// NNBOUND_LONG=1; a small node limit) and searches each certified ball
// for a disagreement independently of the search that certified it
// (contradict).
func TestTop1CertifiedNotContradicted(t *testing.T) {
	if testing.Short() {
		t.Skip("decides 45 balls")
	}
	stride := 10
	if os.Getenv("NNBOUND_LONG") != "" {
		stride = 1
	}
	f, g, xs := digitsPair(t)
	certifiedNotContradicted(t, f, g, xs, stride, 4.0/255, 30)
}

// TestTop1CNNCertifiedNotContradicted does the same for the digits CNN of
// testdata/graphs against its PyTorch int8 copy, on every ninth image at
// radius 2/255 (every image with NNBOUND_TOP1_STRIDE=1). NNBOUND_LONG=1
// only: a ball of the CNN costs about a second.
func TestTop1CNNCertifiedNotContradicted(t *testing.T) {
	stride := longNodes(t, "NNBOUND_TOP1_STRIDE", 9)
	f, g, xs := cnnPair(t)
	certifiedNotContradicted(t, f, g, xs, stride, 2.0/255, 30)
}

// certifiedNotContradicted decides the balls of radius r about every
// stride-th input of xs (node limit maxNodes) and searches each certified
// ball with contradict.
func certifiedNotContradicted(t *testing.T, f, g *nn.Network, xs [][]float64, stride int, r float64, maxNodes int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	certified, balls := 0, 0
	for i := 0; i < len(xs); i += stride {
		balls++
		box := ball(xs[i], r)
		o := DefaultOptions()
		o.MaxNodes = maxNodes
		res, err := DecideTop1(context.Background(), f, g, spec.Inputs{Box: box}, &o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != Holds {
			continue
		}
		certified++
		if p := contradict(f, g, xs[i], box, rng); p != nil {
			t.Fatalf("image %d: certified, but the networks disagree at %v", i, p)
		}
	}
	t.Logf("%d of %d balls certified, none contradicted", certified, balls)
}

// contradict searches box (about x) for a disagreement of f and g that
// CheckTop1 proves, by a search unlike DecideTop1's gradient attack and
// bisection: 600 points (each pixel alone at either end of the box, the
// others at x; random corners; random points) and, for networks with an
// input quantiser, 400 random points of its grid in the box. It returns
// the point found, or nil.
func contradict(f, g *nn.Network, x []float64, box spec.Box, rng *rand.Rand) []float64 {
	p := make([]float64, len(x))
	for q := range 1000 {
		for k := range p {
			switch {
			case q < 2*len(x): // pixel q/2 at an end, the others at the centre
				p[k] = x[k]
				if k == q/2 {
					p[k] = []float64{box.Lo[k], box.Hi[k]}[q%2]
				}
				p[k] = min(max(p[k], box.Lo[k]), box.Hi[k])
			case q < 300:
				p[k] = []float64{box.Lo[k], box.Hi[k]}[rng.IntN(2)]
			case q < 600:
				p[k] = box.Lo[k] + rng.Float64()*(box.Hi[k]-box.Lo[k])
			default: // a grid point of an input quantiser
				in := g.Input
				if in == nil {
					in = f.Input
				}
				if in == nil {
					return nil
				}
				s, _ := in.At(k)
				lo, hi := math.Ceil(box.Lo[k]/s), math.Floor(box.Hi[k]/s)
				p[k] = box.Lo[k]
				if lo <= hi {
					p[k] = min(max((lo+float64(rng.IntN(int(hi-lo)+1)))*s, box.Lo[k]), box.Hi[k])
				}
			}
		}
		if _, s, err := CheckTop1(f, g, p, p); err != nil || s == Violated {
			return p
		}
	}
	return nil
}
