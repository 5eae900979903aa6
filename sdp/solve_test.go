package sdp_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/sdp/sdptest"
)

// verifyTol is the tolerance of the independent checks: the solver works
// to 1e-8, and the recomputation adds its own rounding.
const verifyTol = 1e-7

func TestSolveCases(t *testing.T) {
	cases := append(sdptest.Cases(), sdptest.RotatedLowRankTight(6), sdptest.MaxEigen(40))
	unit := sdp.DefaultSettings()
	unit.DualStart = 1
	for _, c := range cases {
		for _, set := range []*sdp.Settings{nil, &unit} {
			name := c.Name
			if set != nil {
				name += "/DualStart=1"
			}
			t.Run(name, func(t *testing.T) { solveCase(t, c, set) })
		}
	}
}

// solveCase solves c with set and checks the status, the objective and,
// independently, the returned point.
func solveCase(t *testing.T, c sdptest.Case, set *sdp.Settings) {
	t.Helper()
	r, err := sdp.Solve(context.Background(), c.Problem, set)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != c.Status {
		t.Fatalf("status %s, want %s", r.Status, c.Status)
	}
	if c.Status == sdp.Optimal {
		if d := math.Abs(r.PrimalObjective - c.Optimum); d > 1e-7*max(1, math.Abs(c.Optimum)) {
			t.Errorf("objective %.12g, want %.12g", r.PrimalObjective, c.Optimum)
		}
	}
	if err := sdptest.Verify(c.Problem, r, verifyTol); err != nil {
		t.Error(err)
	}
}

func TestSolveMalformed(t *testing.T) {
	for _, c := range sdptest.MalformedCases() {
		t.Run(c.Name, func(t *testing.T) {
			r, err := sdp.Solve(context.Background(), c.Problem, nil)
			if !errors.Is(err, c.Err) {
				t.Fatalf("error %v, want %v", err, c.Err)
			}
			if r != nil {
				t.Errorf("result %+v with an error", r)
			}
		})
	}
}

func TestSolveBadSettings(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*sdp.Settings)
	}{
		{"GapTol zero", func(s *sdp.Settings) { s.GapTol = 0 }},
		{"GapTol NaN", func(s *sdp.Settings) { s.GapTol = math.NaN() }},
		{"FeasTol one", func(s *sdp.Settings) { s.FeasTol = 1 }},
		{"MaxIter zero", func(s *sdp.Settings) { s.MaxIter = 0 }},
		{"TimeLimit negative", func(s *sdp.Settings) { s.TimeLimit = -time.Second }},
		{"DualStart negative", func(s *sdp.Settings) { s.DualStart = -1 }},
		{"DualStart NaN", func(s *sdp.Settings) { s.DualStart = math.NaN() }},
		{"DualStart infinite", func(s *sdp.Settings) { s.DualStart = math.Inf(1) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := sdp.DefaultSettings()
			c.change(&set)
			_, err := sdp.Solve(context.Background(), sdptest.LP().Problem, &set)
			if !errors.Is(err, sdp.ErrSettings) {
				t.Fatalf("error %v, want ErrSettings", err)
			}
		})
	}
}

func TestSolveStops(t *testing.T) {
	p := sdptest.MaxEigen(30).Problem
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name   string
		ctx    context.Context
		change func(*sdp.Settings)
		want   sdp.Status
	}{
		{"cancelled", cancelled, func(*sdp.Settings) {}, sdp.Cancelled},
		{"max iterations", context.Background(), func(s *sdp.Settings) { s.MaxIter = 2 }, sdp.MaxIterations},
		{"time limit", context.Background(), func(s *sdp.Settings) { s.TimeLimit = time.Nanosecond }, sdp.TimeLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := sdp.DefaultSettings()
			c.change(&set)
			r, err := sdp.Solve(c.ctx, p, &set)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != c.want {
				t.Errorf("status %s, want %s", r.Status, c.want)
			}
			if len(r.X) != len(p.C) || len(r.Y) != len(p.Blocks) {
				t.Errorf("result has %d x and %d Y blocks", len(r.X), len(r.Y))
			}
		})
	}
}

func TestSolveLog(t *testing.T) {
	var buf bytes.Buffer
	set := sdp.DefaultSettings()
	set.Log = &buf
	r, err := sdp.Solve(context.Background(), sdptest.ThetaC5().Problem, &set)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if got := strings.Fields(lines[0]); strings.Join(got, " ") != "iter pobj dobj gap pinf dinf mu step" {
		t.Fatalf("header %q", lines[0])
	}
	if len(lines) != r.Iterations+3 {
		t.Errorf("%d lines for %d iterations, want header, one per iterate and status", len(lines), r.Iterations)
	}
	width := len(lines[1])
	for _, l := range lines[1 : len(lines)-1] {
		if len(l) != width {
			t.Errorf("line %q has width %d, want %d", l, len(l), width)
		}
	}
	if !strings.HasPrefix(lines[len(lines)-1], "status optimal") {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}

func TestSolveRandomLowRank(t *testing.T) {
	for _, c := range []struct {
		seed      uint64
		n, m, nnz int
	}{
		{1, 10, 20, 3},
		{2, 30, 100, 5},
		{3, 40, 150, 10},
	} {
		p := sdptest.RandomLowRank(c.seed, c.n, c.m, c.nnz)
		r, err := sdp.Solve(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != sdp.Optimal {
			t.Errorf("seed %d: status %s", c.seed, r.Status)
			continue
		}
		if err := sdptest.Verify(p, r, verifyTol); err != nil {
			t.Errorf("seed %d: %v", c.seed, err)
		}
	}
}

// TestSolveFactorsMatchEntries solves problems twice, once with their
// rank-one matrices as Factors and once expanded into entries. The mixed
// cases add small sparse entries to some constraints in the PSD block, so
// that factors and entries meet in one matrix and across matrices (the
// cross terms of the Schur complement), and the dense ones make F_0 dense
// enough for its residual row to take the F1 formula.
func TestSolveFactorsMatchEntries(t *testing.T) {
	for _, c := range []struct {
		name      string
		n, m, nnz int
		mixed     bool
	}{
		{"sparse factors", 12, 30, 4, false},
		{"dense factors", 8, 40, 8, false},
		{"mixed", 12, 30, 4, true},
		{"mixed dense", 10, 40, 10, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := sdptest.RandomLowRank(7, c.n, c.m, c.nnz)
			if c.mixed {
				for i := 1; i <= c.m; i += 3 {
					a, b := i%c.n, (i*7)%c.n
					p.F[i] = append(p.F[i], sdp.Entry{I: min(a, b), J: max(a, b), V: 0.01},
						sdp.Entry{I: a, J: a, V: 0.02})
					p.C[i-1] += 0.02 // keeps Y = I dual feasible
				}
			}
			q := expandFactors(p)
			restore := sdp.KeepFactors()
			rp, err := sdp.Solve(context.Background(), p, nil)
			restore()
			if err != nil {
				t.Fatal(err)
			}
			rq, err := sdp.Solve(context.Background(), q, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rp.Status != sdp.Optimal || rq.Status != sdp.Optimal {
				t.Fatalf("statuses %s (factors), %s (entries)", rp.Status, rq.Status)
			}
			if d := math.Abs(rp.PrimalObjective - rq.PrimalObjective); d > 1e-7*max(1, math.Abs(rq.PrimalObjective)) {
				t.Errorf("objectives %.12g (factors) and %.12g (entries)", rp.PrimalObjective, rq.PrimalObjective)
			}
			if err := sdptest.Verify(p, rp, verifyTol); err != nil {
				t.Error(err)
			}
		})
	}
}

// expandFactors returns p with every factor written out as entries.
func expandFactors(p *sdp.Problem) *sdp.Problem {
	q := &sdp.Problem{Blocks: p.Blocks, C: p.C, F: make([]sdp.Matrix, len(p.F))}
	for i := range p.F {
		q.F[i] = append(sdp.Matrix(nil), p.F[i]...)
		if i >= len(p.Factors) {
			continue
		}
		for _, f := range p.Factors[i] {
			for a, ia := range f.U.Index {
				for b, ib := range f.U.Index {
					if ia <= ib {
						q.F[i] = append(q.F[i], sdp.Entry{Block: f.Block, I: ia, J: ib,
							V: f.D * f.U.Value[a] * f.U.Value[b]})
					}
				}
			}
		}
	}
	return q
}
