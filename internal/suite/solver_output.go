package suite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/nnbound/nnbound/report"
)

// The readers of each solver's output: status, objectives and iterations,
// mapped onto the statuses of the file's (SDPA's) primal-dual pair.

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
