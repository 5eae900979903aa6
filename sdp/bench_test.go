package sdp_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/sdp/sdptest"
)

// BenchmarkSolve solves generated problems of three shapes: max-cut
// relaxations (rank-one diagonal constraints, dense blocks), the
// low-rank shape of nnbound's certificates, and factors from a dictionary
// (basis: solved through it; basis-plain: the same problem without it). allocs/op stays flat as the
// iterations grow: the workspace is allocated once per solve.
func BenchmarkSolve(b *testing.B) {
	for _, c := range []struct {
		name string
		p    *sdp.Problem
	}{
		{"maxcut/n=100", sdptest.RandomMaxCut(1, 100, 0.1)},
		{"maxcut/n=300", sdptest.RandomMaxCut(2, 300, 0.05)},
		{"lowrank/n=30,m=200", sdptest.RandomLowRank(3, 30, 200, 5)},
		{"lowrank/n=100,m=1000", sdptest.RandomLowRank(4, 100, 1000, 10)},
		{"lowrank/n=300,m=2000", sdptest.RandomLowRank(5, 300, 2000, 20)},
		{"basis/n=300,m=2000,e=150", sdptest.RandomBasis(6, 300, 2000, 150)},
		{"basis-plain/n=300,m=2000,e=150", withoutBases(sdptest.RandomBasis(6, 300, 2000, 150))},
	} {
		b.Run(c.name, func(b *testing.B) {
			var r *sdp.Result
			b.ReportAllocs()
			for b.Loop() {
				var err error
				r, err = sdp.Solve(context.Background(), c.p, nil)
				if err != nil {
					b.Fatal(err)
				}
			}
			if r.Status != sdp.Optimal {
				b.Errorf("status %s", r.Status)
			}
			b.ReportMetric(float64(r.Iterations), "iters/op")
		})
	}
}

// BenchmarkIterationAllocs compares the allocations of solves stopped
// after 2 and after 12 iterations: equal counts mean no allocation per
// iteration.
func BenchmarkIterationAllocs(b *testing.B) {
	p := sdptest.RandomMaxCut(1, 60, 0.2)
	for _, iters := range []int{2, 12} {
		b.Run(fmt.Sprintf("maxiter=%d", iters), func(b *testing.B) {
			set := sdp.DefaultSettings()
			set.MaxIter = iters
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sdp.Solve(context.Background(), p, &set); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// withoutBases returns p without its Bases.
func withoutBases(p *sdp.Problem) *sdp.Problem {
	q := *p
	q.Bases = nil
	return &q
}
