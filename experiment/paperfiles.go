package experiment

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/report"
)

// Result is the result of an experiment, as nnbound paper prints it and
// writes it as JSON.
type Result struct {
	Experiment string `json:"experiment"`
	Mode       string `json:"mode"`
	Runs       int    `json:"runs"`
	Seed       uint64 `json:"seed"`
	QC         string `json:"qc"`
	Weights    string `json:"weights"`
	Rows       []Row  `json:"rows"`
	AllRuns    []Run  `json:"all_runs"`
	Figure     string `json:"figure,omitempty"`
	// Command is the command line that made the result.
	Command string `json:"command"`
}

// Files returns the files Setup.WriteFiles writes into dir: the
// Markdown and JSON tables, and the figure if there is one.
func Files(dir string, e Paper, figure bool) []string {
	files := []string{filepath.Join(dir, e.String()+".md"), filepath.Join(dir, e.String()+".json")}
	if figure {
		files = append(files, filepath.Join(dir, e.String()+".png"))
	}
	return files
}

// WriteFiles writes the Markdown and JSON tables of res and the figure of
// the experiment (Setup.Figure, from its tasks and their certificates)
// into dir, setting res.Figure to the figure's file. hideTimes writes "-"
// for the run times of the Markdown table.
func (s *Setup) WriteFiles(ctx context.Context, dir string, tasks []Task, certs []*certify.Certificate, res *Result, hideTimes bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("experiment: cannot create %s: %w", dir, err)
	}
	fig, err := s.Figure(ctx, tasks, certs, res.Rows, res.Runs)
	if err != nil {
		return err
	}
	files := Files(dir, s.Exp, fig != nil)
	if fig != nil {
		if err := fig.Save(files[2]); err != nil {
			return err
		}
		res.Figure = files[2]
	}
	data, err := report.JSON(res)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(files[1], data); err != nil {
		return err
	}
	var md bytes.Buffer
	writeMarkdown(&md, s.Exp, res, hideTimes)
	return atomicfile.WriteFile(files[0], md.Bytes())
}

// writeMarkdown writes the Markdown report of an experiment.
func writeMarkdown(w io.Writer, e Paper, res *Result, hideTimes bool) {
	fmt.Fprintf(w, "# nnbound paper %s\n\n", e)
	fmt.Fprintf(w, "%s; %d runs per row, seed %d, QC set `%s`, weights `%s`.\n", res.Mode, res.Runs, res.Seed, res.QC, res.Weights)
	fmt.Fprintf(w, "Made by `%s`.\n\n", res.Command)
	Table(e, res.Rows, hideTimes).WriteMarkdown(w)
	fmt.Fprintln(w, "\nColumns: the gammas and mean/max/min of T = ln(bound^2) - ln(error^2) over the evaluation grid,")
	fmt.Fprintln(w, "averaged over the certified runs, and the mean run time; then the number of runs certified, the mean")
	fmt.Fprintln(w, "certified bound on ||f1 - f2||, the mean largest error found, and the median of their ratio.")
	if ref := Reference[e]; ref != nil {
		fmt.Fprintf(w, "\nThe paper's %s (MOSEK; per the authors' script, unit objective weights), for comparison:\n\n", e.Title())
		t := report.NewTable("l", "gamma_x", "gamma_x1", "gamma_x2", "gamma", "mean(T)", "max(T)", "min(T)", "time (s)")
		for _, r := range ref {
			t.AddRow(r[:]...)
		}
		t.WriteMarkdown(w)
	}
	if res.Figure != "" {
		fmt.Fprintf(w, "\n![%s](%s)\n", e, filepath.Base(res.Figure))
	}
}

// Table returns the table of an experiment's rows: the paper's columns,
// then nnbound's. hideTimes shows "-" for the run times.
func Table(e Paper, rows []Row, hideTimes bool) *report.Table {
	first := "l"
	if e == Sweep {
		first = "FB"
	}
	t := report.NewTable(first, "gamma_x", "gamma_x1", "gamma_x2", "gamma", "mean(T)", "max(T)", "min(T)", "time (s)",
		"certified", "bound", "observed", "ratio")
	f := func(x report.Number) string {
		if math.IsNaN(float64(x)) {
			return "-"
		}
		return report.Float(float64(x), 4)
	}
	for _, r := range rows {
		k := r.Layers
		if e == Sweep {
			k = r.FracBits
		}
		when := report.Float(r.Seconds, 3)
		if hideTimes {
			when = "-"
		}
		t.AddRow(fmt.Sprint(k), f(r.GammaX), f(r.GammaX1), f(r.GammaX2), f(r.Gamma), f(r.TMean), f(r.TMax), f(r.TMin), when,
			fmt.Sprintf("%d/%d", r.Certified, r.Runs), f(r.Bound), f(r.Observed), report.Ratio(float64(r.Ratio)))
	}
	t.Align = slices.Repeat([]report.Align{report.Right}, len(t.Header))
	return t
}
