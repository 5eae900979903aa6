package main

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
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/report"
)

// paperFiles returns the files writePaperFiles writes.
func paperFiles(dir string, e experiment.Paper, figure bool) []string {
	files := []string{filepath.Join(dir, e.String()+".md"), filepath.Join(dir, e.String()+".json")}
	if figure {
		files = append(files, filepath.Join(dir, e.String()+".png"))
	}
	return files
}

// writePaperFiles writes the Markdown and JSON tables and the figure of an
// experiment into dir.
func writePaperFiles(ctx context.Context, dir string, s *experiment.Setup, tasks []experiment.Task, certs []*certify.Certificate, res *paperResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, err)
	}
	fig, err := s.Figure(ctx, tasks, certs, res.Rows, res.Runs)
	if err != nil {
		return err
	}
	files := paperFiles(dir, s.Exp, fig != nil)
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
	writePaperMarkdown(&md, s.Exp, res)
	return atomicfile.WriteFile(files[0], md.Bytes())
}

// writePaperMarkdown writes the Markdown report of an experiment.
func writePaperMarkdown(w io.Writer, e experiment.Paper, res *paperResult) {
	fmt.Fprintf(w, "# nnbound paper %s\n\n", e)
	fmt.Fprintf(w, "%s; %d runs per row, seed %d, QC set `%s`, weights `%s`.\n", res.Mode, res.Runs, res.Seed, res.QC, res.Weights)
	fmt.Fprintf(w, "Made by `%s`.\n\n", res.Command)
	paperTable(e, res.Rows).WriteMarkdown(w)
	fmt.Fprintln(w, "\nColumns: the gammas and mean/max/min of T = ln(bound^2) - ln(error^2) over the evaluation grid,")
	fmt.Fprintln(w, "averaged over the certified runs, and the mean run time; then the number of runs certified, the mean")
	fmt.Fprintln(w, "certified bound on ||f1 - f2||, the mean largest error found, and the median of their ratio.")
	if ref, ok := experiment.Reference[e]; ok {
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

// paperTable returns the table of an experiment: the paper's columns, then
// nnbound's.
func paperTable(e experiment.Paper, rows []experiment.Row) *report.Table {
	first := "l"
	if e == experiment.Sweep {
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
		if e == experiment.Sweep {
			k = r.FracBits
		}
		when := report.Float(r.Seconds, 3)
		if hideTimes {
			when = "-"
		}
		t.AddRow(fmt.Sprint(k), f(r.GammaX), f(r.GammaX1), f(r.GammaX2), f(r.Gamma), f(r.TMean), f(r.TMax), f(r.TMin), when,
			fmt.Sprintf("%d/%d", r.Certified, r.Runs), f(r.Bound), f(r.Observed), ratio(r.Ratio))
	}
	t.Align = slices.Repeat([]report.Align{report.Right}, len(t.Header))
	return t
}
