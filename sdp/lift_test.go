package sdp_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/sdp/sdptest"
)

// TestSolveBasisMatchesPlain solves problems whose factors come from a
// dictionary twice, through the lifted route (LiftAlways) and without
// their Bases, and checks that both are optimal, verified independently,
// with the same objective.
func TestSolveBasisMatchesPlain(t *testing.T) {
	defer sdp.KeepFactors()()
	defer sdp.LiftAlways()()
	for _, c := range []struct {
		seed    uint64
		n, m, e int
	}{
		{1, 10, 20, 3},
		{2, 30, 120, 8},
		{3, 40, 200, 20},
	} {
		p := sdptest.RandomBasis(c.seed, c.n, c.m, c.e)
		plain := *p
		plain.Bases = nil
		var obj [2]float64
		for k, q := range []*sdp.Problem{p, &plain} {
			r, err := sdp.Solve(context.Background(), q, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != sdp.Optimal {
				t.Errorf("seed %d, basis %v: status %s", c.seed, k == 0, r.Status)
				continue
			}
			if err := sdptest.Verify(q, r, verifyTol); err != nil {
				t.Errorf("seed %d, basis %v: %v", c.seed, k == 0, err)
			}
			obj[k] = r.PrimalObjective
		}
		if d := math.Abs(obj[0] - obj[1]); d > 1e-6*(1+math.Abs(obj[1])) {
			t.Errorf("seed %d: objective %.10g with the basis, %.10g without", c.seed, obj[0], obj[1])
		}
	}
}

// TestValidateBasis checks that a basis on a diagonal block, a repeated
// basis, a coefficient outside the dictionary and coefficients that do
// not give U are refused.
func TestValidateBasis(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(p *sdp.Problem)
	}{
		{"diagonal block", func(p *sdp.Problem) { p.Bases[0].Block = 1 }},
		{"two bases", func(p *sdp.Problem) { p.Bases = append(p.Bases, p.Bases[0]) }},
		{"coefficient outside", func(p *sdp.Problem) { p.Factors[1][0].Coef.Index[0] = 10 + 3 }},
		{"coefficients differ", func(p *sdp.Problem) { p.Factors[1][0].Coef.Value[0] += 0.5 }},
	} {
		p := sdptest.RandomBasis(1, 10, 20, 3)
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: the problem as drawn: %v", c.name, err)
		}
		c.edit(p)
		if err := p.Validate(); !errors.Is(err, sdp.ErrDimension) {
			t.Errorf("%s: Validate = %v, want ErrDimension", c.name, err)
		}
	}
}

// TestSolveBasisPresolved adds to a basis problem a row of the PSD block
// that no constraint touches, which presolve removes: the basis and the
// coefficients must follow the rows that are kept.
func TestSolveBasisPresolved(t *testing.T) {
	defer sdp.KeepFactors()()
	defer sdp.LiftAlways()()
	p := sdptest.RandomBasis(4, 20, 60, 6)
	want, err := sdp.Solve(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Move every index of the PSD block up by one: row 0 is new and empty.
	// (A coefficient's index n+j of basis vector j moves to n+1+j too.)
	shift := func(v *sdp.SparseVec) {
		for k := range v.Index {
			v.Index[k]++
		}
	}
	p.Blocks[0].Size++
	for i := range p.F {
		for k, e := range p.F[i] {
			if e.Block == 0 {
				p.F[i][k].I, p.F[i][k].J = e.I+1, e.J+1
			}
		}
		for k := range p.Factors[i] {
			shift(&p.Factors[i][k].U)
			shift(&p.Factors[i][k].Coef)
		}
	}
	for j := range p.Bases[0].Vecs {
		shift(&p.Bases[0].Vecs[j])
	}
	got, err := sdp.Solve(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != sdp.Optimal {
		t.Fatalf("status %s", got.Status)
	}
	if d := math.Abs(got.PrimalObjective - want.PrimalObjective); d > 1e-6*(1+math.Abs(want.PrimalObjective)) {
		t.Errorf("objective %.10g with an empty row, %.10g without", got.PrimalObjective, want.PrimalObjective)
	}
}
