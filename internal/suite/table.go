package suite

import (
	"fmt"
	"io"
	"strings"
)

// writeMarkdown prints the table and the summary.
func writeMarkdown(w io.Writer, rows []*problemRow, solvers []*solver, s summary) error {
	var others []string
	for _, sv := range solvers {
		if sv.Name != "nnbound" && sv.Name != "csdp" {
			others = append(others, sv.Name)
		}
	}
	var b strings.Builder
	head := []string{"problem", "m", "n", "status", "objective", "rel. error", "check", "nnbound s", "csdp s", "ratio"}
	for _, o := range others {
		head = append(head, o+" s")
	}
	b.WriteString("| " + strings.Join(head, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(head)) + "\n")
	anyRef := false
	for _, r := range rows {
		ours := r.Results["nnbound"]
		cells := []string{r.Name, fmt.Sprint(r.M), fmt.Sprint(r.N), "—", "—", "—", r.Check, "—", "—", "—"}
		if ours != nil {
			cells[3] = ours.Status
			if r.Objective != nil {
				cells[4] = fmt.Sprintf("%.9g", *r.Objective)
			} else if finite(ours.objective()) {
				cells[4] = fmt.Sprintf("%.9g", ours.objective())
			}
			if r.Error != nil {
				cells[5] = fmt.Sprintf("%.1e", *r.Error)
			}
			cells[7] = seconds(ours)
		}
		if finite(r.csdpTime) {
			cells[8] = fmt.Sprintf("%.3f", r.csdpTime)
			if r.CSDPRef {
				cells[8] += "*"
				anyRef = true
			}
		}
		if r.Ratio != nil {
			cells[9] = fmt.Sprintf("%.2f", *r.Ratio)
		}
		for _, o := range others {
			cells = append(cells, seconds(r.Results[o]))
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n")
	if anyRef {
		b.WriteString("\\* csdp not run: its time from reference-times.tsv.\n\n")
	}
	if s.MedianRatio != nil {
		fmt.Fprintf(&b, "Median ratio nnbound/csdp: **%.2f**; worst: **%.2f** (%s); over 5x: %d",
			*s.MedianRatio, *s.WorstRatio, s.Worst, len(s.Over5x))
		if len(s.Over5x) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(s.Over5x, ", "))
		}
		b.WriteString(".\n")
	}
	fmt.Fprintf(&b, "Checks passed: %d of %d", s.Passed, s.Problems)
	if len(s.Failed) > 0 {
		fmt.Fprintf(&b, "; failed: %s", strings.Join(s.Failed, ", "))
	}
	b.WriteString(".\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// seconds formats a solver's time, or its failure.
func seconds(o *outcome) string {
	switch {
	case o == nil:
		return "—"
	case o.Status == "timeout":
		return "timeout"
	case o.Err != "":
		return "error"
	}
	return fmt.Sprintf("%.3f", o.Seconds)
}

// progressLine is the stderr line printed after each problem.
func progressLine(r *problemRow, solvers []*solver) string {
	parts := []string{r.Name}
	for _, s := range solvers {
		o := r.Results[s.Name]
		p := fmt.Sprintf("%s %s %s", s.Name, seconds(o), o.Status)
		if o.Err != "" {
			p += " (" + o.Err + ")"
		}
		parts = append(parts, p)
	}
	if r.Ratio != nil {
		parts = append(parts, fmt.Sprintf("ratio %.2f", *r.Ratio))
	}
	return strings.Join(parts, "  ") + "  check " + r.Check
}
