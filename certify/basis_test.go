package certify

import (
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/spec"
)

// TestProblemBasis checks the basis given to the solver on two random
// networks of the same shape: the problem validates (every factor's
// coefficients give its vector, which sdp.Problem.Validate checks), the
// basis holds pre-activations, and the terms of hidden neurons are each a
// few coefficients in it rather than a dense row of weights.
func TestProblemBasis(t *testing.T) {
	f1 := randnet.Paper(1, 2, 3, 12, 2)
	f2 := randnet.Paper(2, 2, 3, 12, 2)
	box := spec.Box{Lo: []float64{-1, -1}, Hi: []float64{1, 1}}
	for _, pairing := range []spec.Pairing{spec.SameInput, spec.Independent} {
		o := testTask()
		o.in.Pairing = pairing
		p, err := o.problem(f1, f2, box)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("%v: %v", pairing, err)
		}
		if len(p.Bases) != 1 || len(p.Bases[0].Vecs) == 0 {
			t.Fatalf("%v: bases %v, want one with vectors", pairing, len(p.Bases))
		}
		var factors, split, wide int
		for _, fs := range p.Factors {
			for _, f := range fs {
				factors++
				if len(f.Coef.Index) > 0 {
					split++
				}
				if len(f.Coef.Index) > 6 {
					wide++
				}
			}
		}
		if split < factors/2 || wide > 0 {
			t.Errorf("%v: %d of %d factors in the basis, %d of them with more than 6 coefficients", pairing, split, factors, wide)
		}
	}
}
