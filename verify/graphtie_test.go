package verify

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestDecideGraphQuantiserTie checks that a violation the attack finds at
// a step of an input quantiser (where the point's enclosure cannot tell
// the two levels apart) ends violated on the root's box, with a witness
// that re-evaluates above epsilon: f(x) = x, g(x) = 1.2 q(x) with q of step
// 0.25, so the search climbs to x = 0.875 (where |g - f| nears 0.325) and
// the level 1 next to it has |g - f| = 0.2 > 0.15.
func TestDecideGraphQuantiserTie(t *testing.T) {
	chain := func(in *nn.Quantiser, w float64) *nn.Graph {
		return (&nn.Network{Input: in, Layers: []nn.Layer{
			{W: mat.NewDense(1, 1, []float64{w}), B: []float64{0}, Act: nn.Activation{Kind: nn.Identity}},
		}}).Graph()
	}
	f := chain(nil, 1)
	g := chain(&nn.Quantiser{Scale: []float64{0.25}, Zero: []int64{0}, Lo: nn.Uint8Lo, Hi: nn.Uint8Hi}, 1.2)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{0}, Hi: []float64{1}}}
	tol := spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{0.15}}
	opts := DefaultOptions()
	opts.MaxNodes = 1
	r, err := DecideGraph(context.Background(), f, g, in, tol, &opts)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Violated || r.Counterexample == nil {
		t.Fatalf("status %v (%v), worst %+v; want violated", r.Status, r.Reason, r.Worst)
	}
	x := r.Counterexample.X
	p, s, err := CheckPointGraph(f, g, x, x, tol)
	if err != nil || s != Violated || p.MeasureLo <= 0.15 {
		t.Fatalf("witness %v re-evaluates %v (measure in [%v, %v]), err %v", x, s, p.MeasureLo, p.MeasureHi, err)
	}
}
