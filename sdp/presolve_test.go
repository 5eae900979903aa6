package sdp_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/sdp/sdptest"
)

// withDeadParts returns p with what presolve removes added to it, none of
// which changes the optimum: k rows appended to PSD block 0 that only
// debris of 1e-40 touches, and a diagonal block of k coordinates, each
// the only entry of a new constraint with c = 0 (a multiplier whose dual
// coordinate is forced to zero), half of them with F_0 = -1 there.
func withDeadParts(p *sdp.Problem, k int, seed uint64) *sdp.Problem {
	rng := rand.New(rand.NewPCG(seed, 0xdead))
	q := &sdp.Problem{
		Blocks: slices.Clone(p.Blocks),
		C:      slices.Clone(p.C),
		F:      make([]sdp.Matrix, len(p.F)),
	}
	for i, m := range p.F {
		q.F[i] = slices.Clone(m)
	}
	if p.Factors != nil {
		q.Factors = make([][]sdp.Factor, len(p.Factors))
		copy(q.Factors, p.Factors)
	}
	n := q.Blocks[0].Size
	q.Blocks[0].Size += k
	lp := len(q.Blocks)
	q.Blocks = append(q.Blocks, sdp.Block{Size: k, Diagonal: true})
	for j := range k {
		row := n + j
		q.C = append(q.C, 0)
		f := sdp.Matrix{
			{Block: lp, I: j, J: j, V: 1},
			{Block: 0, I: rng.IntN(n), J: row, V: 1e-40 * rng.NormFloat64()},
		}
		q.F = append(q.F, f)
		if q.Factors != nil {
			q.Factors = append(q.Factors, nil)
		}
		if j%2 == 0 {
			q.F[0] = append(q.F[0], sdp.Entry{Block: lp, I: j, J: j, V: -1})
		}
	}
	return q
}

func TestSolveDeadParts(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *sdp.Problem
	}{
		{"maxeig", sdptest.MaxEigen(8).Problem},
		{"theta", sdptest.ThetaC5().Problem},
		{"lowrank", sdptest.RandomLowRank(11, 12, 30, 4)},
	} {
		t.Run(c.name, func(t *testing.T) {
			ref, err := sdp.Solve(context.Background(), c.p, nil)
			if err != nil {
				t.Fatal(err)
			}
			q := withDeadParts(c.p, 4, 1)
			r, err := sdp.Solve(context.Background(), q, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != sdp.Optimal {
				t.Fatalf("status %s, want optimal (%s without the dead parts)", r.Status, ref.Status)
			}
			if len(r.X) != len(q.C) || len(r.Y) != len(q.Blocks) {
				t.Fatalf("result has %d x and %d Y blocks, want %d and %d", len(r.X), len(r.Y), len(q.C), len(q.Blocks))
			}
			if d := math.Abs(r.PrimalObjective - ref.PrimalObjective); d > 1e-7*max(1, math.Abs(ref.PrimalObjective)) {
				t.Errorf("objective %.12g, %.12g without the dead parts", r.PrimalObjective, ref.PrimalObjective)
			}
			if err := sdptest.Verify(q, r, verifyTol); err != nil {
				t.Error(err)
			}
		})
	}
}
