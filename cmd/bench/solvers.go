package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
		"nnbound": {Name: "nnbound", Args: func(f, _ string) []string { return []string{"solve", "--json", f} },
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

// parseNnbound reads the JSON object of "nnbound solve --json".
func parseNnbound(stdout []byte, _ string, code int) outcome {
	v := struct {
		Status          string        `json:"status"`
		PrimalObjective report.Number `json:"primal_objective"`
		DualObjective   report.Number `json:"dual_objective"`
		Iterations      int           `json:"iterations"`
	}{PrimalObjective: nan, DualObjective: nan}
	if err := json.Unmarshal(stdout, &v); err != nil || v.Status == "" {
		return failed("error", fmt.Sprintf("nnbound exit code %d, no JSON result", code))
	}
	return outcome{Status: v.Status, Raw: v.Status, PrimalObjective: v.PrimalObjective,
		DualObjective: v.DualObjective, Iterations: v.Iterations}
}

// parseCSDP reads CSDP's stdout. CSDP's exit codes: 0 solved, 1 primal
// infeasible and 2 dual infeasible in CSDP's naming (its primal is SDPA's
// dual), 3 solved with reduced accuracy, 4 and up failures.
func parseCSDP(stdout []byte, _ string, code int) outcome {
	o := outcome{PrimalObjective: nan, DualObjective: nan}
	forLines(stdout, func(line string) {
		switch {
		case strings.HasPrefix(line, "Iter:"):
			if f := strings.Fields(line); len(f) > 1 {
				o.Iterations, _ = strconv.Atoi(f[1])
			}
		case strings.HasPrefix(line, "Success:"), strings.HasPrefix(line, "Partial Success:"),
			strings.HasPrefix(line, "Failure:"):
			o.Raw = line
		case strings.HasPrefix(line, "Primal objective value:"):
			o.PrimalObjective = report.Number(lastFloat(line))
		case strings.HasPrefix(line, "Dual objective value:"):
			o.DualObjective = report.Number(lastFloat(line))
		}
	})
	o.Status = map[int]string{0: "optimal", 1: "dual_infeasible", 2: "primal_infeasible", 3: "near_optimal",
		4: "max_iterations"}[code]
	if o.Status == "" {
		o.Status = "failed"
		if o.Raw == "" {
			o.Err = fmt.Sprintf("csdp exit code %d", code)
		}
	}
	return o
}

// parseSDPA reads SDPA's result file. SDPA names phases in its own
// primal/dual convention, the reverse of the file's: pUNBD means the
// file's dual is infeasible.
func parseSDPA(_ []byte, out string, code int) outcome {
	o := outcome{PrimalObjective: nan, DualObjective: nan}
	data, err := os.ReadFile(out)
	if err != nil {
		return failed("error", fmt.Sprintf("sdpa exit code %d, no result file", code))
	}
	forLines(data, func(line string) {
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return
		}
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "phase.value":
			if o.Raw == "" {
				o.Raw = val
			}
		case "Iteration":
			o.Iterations, _ = strconv.Atoi(val)
		case "objValPrimal":
			o.PrimalObjective = report.Number(parseFloatOr(val, math.NaN()))
		case "objValDual":
			o.DualObjective = report.Number(parseFloatOr(val, math.NaN()))
		}
	})
	o.Status = map[string]string{"pdOPT": "optimal", "pFEAS": "near_optimal", "dFEAS": "near_optimal",
		"pdFEAS": "near_optimal", "pUNBD": "dual_infeasible", "dUNBD": "primal_infeasible",
		"pdINF": "infeasible"}[o.Raw]
	if o.Status == "" {
		o.Status = "failed"
	}
	return o
}

// parseDSDP reads DSDP5's stdout. DSDP solves the file's dual as its
// primal: objectives are negated and its infeasibility names swapped.
func parseDSDP(stdout []byte, _ string, code int) outcome {
	o := outcome{PrimalObjective: nan, DualObjective: nan}
	forLines(stdout, func(line string) {
		switch {
		case strings.HasPrefix(line, "P Objective"):
			o.DualObjective = report.Number(-lastFloat(line))
		case strings.HasPrefix(line, "DSDP Solution"):
			o.PrimalObjective = report.Number(-lastFloat(line))
		case strings.HasPrefix(line, "DSDP ") && !strings.Contains(line, "Time") &&
			!strings.Contains(line, "Solve") && !strings.Contains(line, "Set Data") &&
			!strings.Contains(line, "Process Data"):
			if o.Raw == "" {
				o.Raw = line
			} else {
				o.Raw += " / " + line
			}
		}
	})
	switch {
	case strings.Contains(o.Raw, "Primal Infeasible"):
		o.Status = "dual_infeasible"
	case strings.Contains(o.Raw, "Dual Infeasible"):
		o.Status = "primal_infeasible"
	case strings.Contains(o.Raw, "Converged"):
		o.Status = "optimal"
	case o.Raw == "":
		o.Status, o.Err = "error", fmt.Sprintf("dsdp5 exit code %d, no status line", code)
	default:
		o.Status = "failed"
	}
	return o
}

// forLines calls f on each line of data, trimmed of surrounding space.
func forLines(data []byte, f func(string)) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f(strings.TrimSpace(sc.Text()))
	}
}

// lastFloat parses the last field of line, or returns NaN.
func lastFloat(line string) float64 {
	f := strings.Fields(line)
	if len(f) == 0 {
		return math.NaN()
	}
	return parseFloatOr(f[len(f)-1], math.NaN())
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
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
