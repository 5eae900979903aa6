package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nnbound/nnbound/sdp"
)

// stubSolver replaces the solver with one returning r, recording the
// settings it was given, for the duration of the test.
func stubSolver(t *testing.T, r sdp.Result, got *sdp.Settings) {
	t.Helper()
	old := solveSDP
	t.Cleanup(func() { solveSDP = old })
	solveSDP = func(_ context.Context, p *sdp.Problem, s *sdp.Settings) (*sdp.Result, error) {
		if err := p.Validate(); err != nil {
			return nil, err
		}
		if got != nil {
			*got = *s
		}
		if s.Log != nil {
			fmt.Fprintln(s.Log, "iter pobj dobj gap pinf dinf mu step")
		}
		out := r
		return &out, nil
	}
}

// solveFile returns the path of a test file of "nnbound solve".
func solveFile(name string) string { return filepath.Join("testdata", "solve", name) }

// TestSolveGolden checks the text and JSON output of "nnbound solve" and
// its exit code for each status, with a stub solver so that the files do
// not depend on the solver's last digits.
func TestSolveGolden(t *testing.T) {
	optimal := sdp.Result{Status: sdp.Optimal, X: []float64{3}, PrimalObjective: 3.0000000012,
		DualObjective: 2.9999999991, PrimalInfeasibility: 1.2e-10, DualInfeasibility: 3.4e-11,
		RelGap: 7e-10, Iterations: 9, Time: 1234567 * time.Microsecond}
	near := optimal
	near.Status, near.RelGap = sdp.NearOptimal, 4e-7
	infeasible := sdp.Result{Status: sdp.PrimalInfeasible, PrimalObjective: math.Inf(1),
		DualObjective: math.NaN(), PrimalInfeasibility: 1, Iterations: 14, Time: 2 * time.Millisecond}
	tests := []struct {
		golden string
		args   []string
		result sdp.Result
		code   int
	}{
		{"maxeig.txt", []string{"solve", solveFile("maxeig.dat-s")}, optimal, exitOK},
		{"maxeig.json", []string{"solve", "--json", solveFile("maxeig.dat-s")}, optimal, exitOK},
		{"lp-near.txt", []string{"solve", solveFile("lp.dat-s")}, near, exitFail},
		{"infeasible.txt", []string{"solve", solveFile("infeasible.dat-s")}, infeasible, exitFail},
		{"infeasible.json", []string{"solve", solveFile("infeasible.dat-s"), "--json"}, infeasible, exitFail},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			stubSolver(t, tt.result, nil)
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr = %q, want nothing", stderr.String())
			}
			checkGolden(t, solveFile(tt.golden), stdout.Bytes())
		})
	}
}

// TestSolveFlags checks that the flags reach the solver's settings, that
// the defaults are sdp.DefaultSettings, and that -v sends the log to stderr.
func TestSolveFlags(t *testing.T) {
	var got sdp.Settings
	stubSolver(t, sdp.Result{Status: sdp.Optimal}, &got)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"solve", solveFile("maxeig.dat-s")}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	want := sdp.DefaultSettings()
	want.TimeLimit = solveTimeout // the command's default, not the library's none
	if got != want {
		t.Errorf("default settings %+v, want %+v", got, want)
	}
	stdout.Reset()
	args := []string{"solve", "-v", "--gap-tol", "1e-6", "--feas-tol=1e-7", "--max-iter", "7",
		"--timeout", "90", solveFile("maxeig.dat-s")}
	if code := run(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	if got.GapTol != 1e-6 || got.FeasTol != 1e-7 || got.MaxIter != 7 || got.TimeLimit != 90*time.Second {
		t.Errorf("settings %+v do not match the flags", got)
	}
	if !strings.HasPrefix(stderr.String(), "iter pobj") {
		t.Errorf("-v: stderr = %q, want the iteration log", stderr.String())
	}
	if strings.Contains(stdout.String(), "iter pobj") {
		t.Errorf("-v: the log went to stdout")
	}
}

// TestSolveBadInput checks that bad files and bad command lines give one
// clear line on stderr, nothing on stdout, and exit 1 (2 for usage).
func TestSolveBadInput(t *testing.T) {
	stubSolver(t, sdp.Result{Status: sdp.Optimal}, nil)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing file", []string{"solve", solveFile("missing.dat-s")}, exitFail, "no such file or directory"},
		{"directory", []string{"solve", filepath.Join("testdata", "solve")}, exitFail, "is a directory"},
		{"empty file", []string{"solve", solveFile("empty.dat-s")}, exitFail, "empty.dat-s:1: empty file"},
		{"random bytes", []string{"solve", solveFile("random.dat-s")}, exitFail, "random.dat-s:1: want the number of constraint matrices"},
		{"malformed line", []string{"solve", solveFile("malformed.dat-s")}, exitFail, `malformed.dat-s:6: column index "x" is not an integer`},
		{"no file", []string{"solve"}, exitUsage, "solve needs FILE.dat-s (1 argument), got 0"},
		{"two files", []string{"solve", "a", "b"}, exitUsage, "got 2; see nnbound solve --help"},
		{"unknown flag", []string{"solve", "--gap", "1", solveFile("maxeig.dat-s")}, exitUsage, "unknown flag: --gap"},
		{"bad number", []string{"solve", "--gap-tol", "tiny", solveFile("maxeig.dat-s")}, exitUsage, "invalid argument"},
		{"gap-tol range", []string{"solve", "--gap-tol", "2", solveFile("maxeig.dat-s")}, exitUsage, "--gap-tol = 2, want in (0, 1)"},
		{"feas-tol range", []string{"solve", "--feas-tol", "0", solveFile("maxeig.dat-s")}, exitUsage, "--feas-tol = 0"},
		{"max-iter range", []string{"solve", "--max-iter", "0", solveFile("maxeig.dat-s")}, exitUsage, "--max-iter = 0, want > 0"},
		{"timeout range", []string{"solve", "--timeout", "-1", solveFile("maxeig.dat-s")}, exitUsage, "--timeout = -1s"},
		{"timeout range by its old name", []string{"solve", "--time-limit", "-1s", solveFile("maxeig.dat-s")}, exitUsage, "--timeout = -1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d", code, tt.code)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "nnbound: ") || !strings.Contains(msg, tt.msg) {
				t.Errorf("stderr = %q, want one line containing %q", msg, tt.msg)
			}
		})
	}
}

// TestSolveReal runs the real solver on the tiny problems of testdata and
// checks status and objective against their known optima.
func TestSolveReal(t *testing.T) {
	tests := []struct {
		file   string
		status string
		obj    float64
		code   int
	}{
		{"maxeig.dat-s", "optimal", 3, exitOK},
		{"lp.dat-s", "optimal", 6, exitOK},
		{"infeasible.dat-s", "primal_infeasible", math.NaN(), exitFail},
		{"unbounded.dat-s", "dual_infeasible", math.NaN(), exitFail},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"solve", "--json", solveFile(tt.file)}, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			var out struct {
				Status          string
				PrimalObjective *float64 `json:"primal_objective"`
				DualObjective   *float64 `json:"dual_objective"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("%v: %s", err, stdout.String())
			}
			if out.Status != tt.status {
				t.Errorf("status %q, want %q", out.Status, tt.status)
			}
			if math.IsNaN(tt.obj) {
				return
			}
			for _, v := range []*float64{out.PrimalObjective, out.DualObjective} {
				if v == nil || math.Abs(*v-tt.obj) > 1e-6*math.Max(1, math.Abs(tt.obj)) {
					t.Errorf("objectives %v, %v; want %v", out.PrimalObjective, out.DualObjective, tt.obj)
					break
				}
			}
		})
	}
}
