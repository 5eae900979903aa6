package suite

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/nnbound/nnbound/report"
)

// acasRun is the whole result of "bench acasxu", as printed with --json.
type acasRun struct {
	Method     string         `json:"method"`
	Solver     string         `json:"solver"`
	Bounds     string         `json:"bounds"`
	Pieces     int            `json:"pieces"`
	Timeout    string         `json:"timeout"`
	SearchTime string         `json:"search_time"`
	CPUs       int            `json:"cpus"`
	LoadStart  report.Number  `json:"load_average_start"`
	LoadEnd    report.Number  `json:"load_average_end"`
	Rows       []*acasRow     `json:"instances"`
	Summary    []*acasSummary `json:"summary"`
	// Violations counts the rows whose bound is below an attained
	// difference.
	Violations int `json:"soundness_violations"`
}

// acasSummary aggregates the rows of one property ("all" for every row).
type acasSummary struct {
	Prop      string `json:"prop"`
	Instances int    `json:"instances"`
	Certified int    `json:"certified"`
	// MedianRatio is the median of bound / NeuroDiff over the certified
	// instances; Tighter counts the instances whose bound is below
	// NeuroDiff's (uncertified ones are not).
	MedianRatio report.Number `json:"median_ratio_neurodiff"`
	Tighter     int           `json:"tighter_than_neurodiff"`
	// MedianTightness is the median of bound / largest difference found.
	MedianTightness report.Number `json:"median_bound_over_found"`
	MaxSeconds      float64       `json:"max_seconds"`
	Slowest         string        `json:"slowest"`
	MaxPeakRSS      report.Number `json:"max_peak_rss_mib"`
	Violations      int           `json:"soundness_violations"`
}

// summarise fills Summary (one entry per property of props, then "all")
// and Violations.
func (run *acasRun) summarise(props []string) {
	run.Summary = nil
	for _, p := range append(append([]string(nil), props...), "all") {
		s := &acasSummary{Prop: p, MaxPeakRSS: report.Number(math.NaN())}
		var ratios, tight []float64
		for _, r := range run.Rows {
			if p != "all" && r.Prop != p {
				continue
			}
			s.Instances++
			if r.violated() {
				s.Violations++
			}
			if r.Seconds > s.MaxSeconds {
				s.MaxSeconds, s.Slowest = r.Seconds, r.Prop+"/"+r.Net
			}
			if m := float64(r.PeakRSS); finite(m) && !(m <= float64(s.MaxPeakRSS)) {
				s.MaxPeakRSS = r.PeakRSS
			}
			if r.Status != "certified" {
				continue
			}
			s.Certified++
			if v := float64(r.Ratio); finite(v) {
				ratios = append(ratios, v)
				if v < 1 {
					s.Tighter++
				}
			}
			if f := float64(r.Found); finite(f) && f > 0 {
				tight = append(tight, float64(r.Bound)/f)
			}
		}
		if s.Instances == 0 {
			continue
		}
		s.MedianRatio, s.MedianTightness = report.Number(median(ratios)), report.Number(median(tight))
		run.Summary = append(run.Summary, s)
		if p == "all" {
			run.Violations = s.Violations
		}
	}
}

// writeMarkdown prints the run's header line, the table of instances and
// the summary.
func (run *acasRun) writeMarkdown(w io.Writer) error {
	var b strings.Builder
	solver := ""
	if run.Method != ACASInterval.String() {
		solver = ", SDP solver " + run.Solver
	}
	pieces := "one-shot"
	if run.Pieces > 1 {
		pieces = fmt.Sprintf("up to %d input pieces", run.Pieces)
	}
	fmt.Fprintf(&b, "Method %s (bounds %s%s, %s); time limit %s per bound, %s per search; %d CPUs, load average (1 min) %s at the start, %s at the end.\n\n",
		run.Method, run.Bounds, solver, pieces, run.Timeout, run.SearchTime, run.CPUs, numSig(run.LoadStart, 3), numSig(run.LoadEnd, 3))
	t := report.NewTable("prop", "net", "bound", "method", "NeuroDiff", "ReluDiff+", "ours/ND", "s", "CPU s", "found", "found (data)",
		"sound", "peak MiB", "load", "unstable f")
	for _, r := range run.Rows {
		method := r.Method
		if r.Status != "certified" {
			method = r.Status
		}
		t.AddRow(r.Prop, r.Net, num4(r.Bound), method, num4(r.NeuroDiff), num4(r.ReluDiffPlus), num4(r.Ratio),
			report.Float(r.Seconds, 3), report.Float(r.CPUSeconds, 3), num4(r.Found), num4(r.FoundTSV), r.Sound, numSig(r.PeakRSS, 3),
			numSig(r.Load, 3), hiddenCounts(r.Unstable1))
	}
	if err := t.WriteMarkdown(&b); err != nil {
		return err
	}
	b.WriteString("\n")
	st := report.NewTable("prop", "instances", "certified", "median ours/ND", "tighter than ND", "median bound/found",
		"max s", "slowest", "max peak MiB", "soundness")
	for _, s := range run.Summary {
		sound := soundOK
		if s.Violations > 0 {
			sound = fmt.Sprintf("**%d FAIL**", s.Violations)
		}
		st.AddRow(s.Prop, fmt.Sprint(s.Instances), fmt.Sprint(s.Certified), num4(s.MedianRatio),
			fmt.Sprintf("%d/%d (%.0f%%)", s.Tighter, s.Instances, 100*float64(s.Tighter)/float64(s.Instances)),
			num4(s.MedianTightness), report.Float(s.MaxSeconds, 3), s.Slowest, numSig(s.MaxPeakRSS, 3), sound)
	}
	if err := st.WriteMarkdown(&b); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// num4 formats v with 4 significant digits, "—" when not finite.
func num4(v report.Number) string { return numSig(v, 4) }

// numSig formats v with sig significant digits, "—" when not finite.
func numSig(v report.Number, sig int) string {
	if !finite(float64(v)) {
		return "—"
	}
	return report.Float(float64(v), sig)
}

// hiddenCounts formats per-layer counts of the hidden layers (all but the
// last entry) as "9 5 9 18".
func hiddenCounts(c []int) string {
	if len(c) < 2 {
		return ""
	}
	parts := make([]string, len(c)-1)
	for i, v := range c[:len(c)-1] {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, " ")
}
