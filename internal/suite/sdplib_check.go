package suite

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nnbound/nnbound/sdp/sdpa"
)

// benchProblem runs every solver on file and checks nnbound's result.
func benchProblem(ctx context.Context, file string, refs map[string]*reference, solvers []*solver, o *SDPLIBOptions) (*problemRow, error) {
	p, err := sdpa.Read(file)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(file), ".dat-s")
	row := &problemRow{Name: name, File: file, M: p.NumVars(), ratio: math.NaN(), csdpTime: math.NaN()}
	for _, b := range p.Blocks {
		row.N += b.Size
	}
	row.Results = runSolvers(ctx, solvers, file, o.Runs, o.Timeout)
	ref := refs[name]
	if ref != nil {
		row.Tol = ref.Tol
		if finite(ref.Value) {
			row.Reference = num(ref.Value)
		}
		if r := ref.Range; r != nil {
			row.Range = []float64{r.Lo, r.Hi}
		}
	}
	row.Check = "—"
	if ours := row.Results["nnbound"]; ours != nil {
		row.Check = check(ref, ours)
		if ref != nil && finite(ref.Value) {
			row.Objective = num(ours.objective())
			row.Error = num(ref.error(ours))
		}
		row.csdpTime = math.NaN()
		if c := row.Results["csdp"]; c != nil && c.Err == "" {
			row.csdpTime = c.Seconds
		} else if ref != nil && finite(ref.CSDPTime) {
			row.csdpTime, row.CSDPRef = ref.CSDPTime, true
		}
		if ours.Err == "" && row.csdpTime > 0 {
			row.ratio = ours.Seconds / row.csdpTime
			row.Ratio = num(row.ratio)
		}
	}
	return row, nil
}

// relError is max(|pobj - v|, |dobj - v|) / max(1, |v|); +Inf when an
// objective is missing.
func relError(o *outcome, v float64) float64 {
	p, d := float64(o.PrimalObjective), float64(o.DualObjective)
	if !finite(p) || !finite(d) {
		return math.Inf(1)
	}
	return max(math.Abs(p-v), math.Abs(d-v)) / max(1, math.Abs(v))
}

// check applies the rules of the package doc to nnbound's outcome.
func check(ref *reference, o *outcome) string {
	if ref == nil {
		return "—"
	}
	if o.Err != "" {
		return "FAIL"
	}
	if ref.Status != "opt" {
		if o.Status == ref.Status {
			return "ok"
		}
		return "FAIL"
	}
	e := ref.error(o)
	solved := o.Status == "optimal" || o.Status == "near_optimal"
	switch {
	case ref.Range != nil:
		// Not "ok" even when optimal: a range is no value to match.
		if solved && e <= ref.Tol {
			return "ok?"
		}
	case o.Status == "optimal" && e <= strictTol:
		return "ok"
	case ref.Uncertain && solved && e <= ref.Tol:
		return "ok?"
	case ref.IllPosed && solved && e <= ref.Tol:
		return "ok~"
	}
	return "FAIL"
}

// summarise computes the median and worst ratio and the failed checks.
func summarise(rows []*problemRow, solvers []*solver) summary {
	s := summary{Problems: len(rows), Failed: []string{}, Over5x: []string{}}
	for _, sv := range solvers {
		s.Solvers = append(s.Solvers, sv.Name)
	}
	var ratios []float64
	worst := math.Inf(-1)
	for _, r := range rows {
		switch r.Check {
		case "ok", "ok~", "ok?":
			s.Passed++
		case "FAIL":
			s.Failed = append(s.Failed, r.Name)
		}
		if !finite(r.ratio) {
			continue
		}
		ratios = append(ratios, r.ratio)
		if r.ratio > worst {
			worst, s.Worst = r.ratio, r.Name
		}
		if r.ratio > 5 {
			s.Over5x = append(s.Over5x, r.Name)
		}
	}
	if len(ratios) > 0 {
		s.MedianRatio = num(median(ratios))
		s.WorstRatio = num(worst)
	}
	slices.Sort(s.Over5x)
	return s
}

// num returns a pointer to v, or nil when v is not finite (JSON null).
func num(v float64) *float64 {
	if !finite(v) {
		return nil
	}
	return &v
}
