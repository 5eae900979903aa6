package suite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/nnbound/nnbound/report"
)

// outcome is how one solver did on one problem.
type outcome struct {
	// Status is normalised to nnbound's names in SDPA's primal/dual
	// convention (optimal, near_optimal, primal_infeasible,
	// dual_infeasible, ...); Raw is the solver's own words.
	Status          string        `json:"status"`
	Raw             string        `json:"raw_status,omitempty"`
	PrimalObjective report.Number `json:"primal_objective"`
	DualObjective   report.Number `json:"dual_objective"`
	Iterations      int           `json:"iterations,omitempty"`
	Seconds         float64       `json:"seconds"` // median wall time of Runs
	Runs            []float64     `json:"runs"`
	Err             string        `json:"error,omitempty"`
}

// failed returns the outcome of a run that could not be run or parsed.
func failed(status, msg string) outcome {
	return outcome{Status: status, Err: msg, PrimalObjective: nan, DualObjective: nan}
}

// objective returns the mean of the primal and dual objectives, or the
// one that is finite.
func (o *outcome) objective() float64 {
	p, d := float64(o.PrimalObjective), float64(o.DualObjective)
	switch {
	case finite(p) && finite(d):
		return (p + d) / 2
	case finite(p):
		return p
	}
	return d
}

// solver runs one external program on SDPA files.
type solver struct {
	Name string
	Bin  string // path of the executable
	// Args returns the command-line arguments for file; out is a scratch
	// path the solver may write its result to.
	Args func(file, out string) []string
	// Env is added to the environment.
	Env []string
	// Parse reads the outcome from the solver's stdout, its result file
	// and its exit code.
	Parse func(stdout []byte, out string, code int) outcome
}

// singleThread is the environment of every run.
var singleThread = []string{"OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1", "MKL_NUM_THREADS=1"}

// knownSolvers lists the solvers the bench knows, by name; nnbound's Bin
// is filled in once the binary is built.
func knownSolvers() map[string]*solver {
	return map[string]*solver{
		"nnbound": {Name: "nnbound", Args: func(f, _ string) []string { return []string{"solve", "--json", "--timeout", "0", f} }, // --timeout: the bench's own
			Env: []string{"GOMAXPROCS=1"}, Parse: parseNnbound},
		"csdp": {Name: "csdp", Bin: "csdp", Args: func(f, _ string) []string { return []string{f} },
			Parse: parseCSDP},
		"sdpa": {Name: "sdpa", Bin: "sdpa", Args: func(f, out string) []string {
			return []string{"-ds", f, "-o", out, "-numThreads", "1"}
		}, Parse: parseSDPA},
		"dsdp5": {Name: "dsdp5", Bin: "dsdp5", Args: func(f, _ string) []string { return []string{f} },
			Parse: parseDSDP},
	}
}

// runSolvers runs each solver on file up to runs times and returns the
// outcome of each solver's first run with the median wall time. Runs are
// interleaved (every solver once, then again) so that a change in the
// load of a shared machine affects all solvers alike; a solver whose
// first run takes 10 s or more, or fails, is not run again.
func runSolvers(ctx context.Context, solvers []*solver, file string, runs int, timeout time.Duration) map[string]*outcome {
	out := make(map[string]*outcome, len(solvers))
	for r := 0; r < runs; r++ {
		for _, s := range solvers {
			first := out[s.Name]
			if first != nil && (first.Err != "" || first.Runs[0] >= 10) {
				continue
			}
			o, secs := runOnce(ctx, s, file, timeout)
			if first == nil {
				first = &o
				out[s.Name] = first
			}
			if o.Err != "" {
				*first = o
				continue
			}
			first.Runs = append(first.Runs, secs)
			first.Seconds = median(first.Runs)
		}
	}
	return out
}

// runOnce runs s once in a scratch directory and measures its wall time.
func runOnce(ctx context.Context, s *solver, file string, timeout time.Duration) (outcome, float64) {
	dir, err := os.MkdirTemp("", "nnbound-bench-")
	if err != nil {
		return failed("error", err.Error()), 0
	}
	defer os.RemoveAll(dir)
	abs, err := filepath.Abs(file)
	if err != nil {
		return failed("error", err.Error()), 0
	}
	out := filepath.Join(dir, "result.out")
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Bin, s.Args(abs, out)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), singleThread...), s.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	secs := time.Since(start).Seconds()
	if ctx.Err() == context.DeadlineExceeded {
		return failed("timeout", fmt.Sprintf("timed out after %v", timeout)), secs
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		return failed("error", err.Error()), secs
	}
	o := s.Parse(stdout.Bytes(), out, code)
	if o.Err != "" && stderr.Len() > 0 {
		o.Err += ": " + firstLine(stderr.String())
	}
	return o, secs
}

// nan is the value of an objective a solver did not report.
var nan = report.Number(math.NaN())

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// median returns the median of v, or NaN if v is empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
