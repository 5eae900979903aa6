package main

import (
	"bytes"
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

// paperReference holds the rows of the paper's Tables 1 and 2 (MOSEK
// through YALMIP, averages over 100 runs): l, gamma_x, gamma_x1, gamma_x2,
// gamma, mean(T), max(T), min(T), run time (s).
var paperReference = map[paperExperiment][][9]string{ // Tables 1 and 2 of Appendix 7
	expTable1: {
		{"1", "14.9723", "0.3027", "0.0829", "1.7490", "3.3721", "20.0648", "1.0332", "1.1667"},
		{"2", "181.1923", "18.6963", "11.9055", "52.5948", "5.0755", "21.7170", "2.3473", "2.9527"},
		{"3", "1432.4", "351.5557", "259.4226", "613.1431", "6.0144", "22.6888", "3.3431", "18.7965"},
		{"4", "16532", "7309.7", "5344.7", "6775.3", "7.1827", "24.2606", "4.2432", "78.6121"},
	},
	expTable2: {
		{"1", "0.0000", "1.0730", "0.0705", "2.3730", "2.7206", "8.7061", "0.8257", "0.8629"},
		{"2", "0.0000", "19.9720", "0.5333", "27.7495", "3.9042", "10.3077", "1.8512", "3.4178"},
		{"3", "0.0006", "190.4040", "5.9258", "558.7039", "4.6004", "10.2126", "2.6929", "19.8407"},
		{"4", "0.00870", "1065.9", "61.1359", "10893", "6.0101", "11.5699", "3.8971", "87.7687"},
	},
}

// paperFiles returns the files writePaperFiles writes.
func paperFiles(dir string, e paperExperiment, figure bool) []string {
	files := []string{filepath.Join(dir, e.String()+".md"), filepath.Join(dir, e.String()+".json")}
	if figure {
		files = append(files, filepath.Join(dir, e.String()+".png"))
	}
	return files
}

// writePaperFiles writes the Markdown and JSON tables and the figure of an
// experiment into dir.
func writePaperFiles(dir string, s *paperSetup, tasks []paperTask, certs []*certify.Certificate, res *paperResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, err)
	}
	fig, err := paperFigure(s, tasks, certs, res)
	if err != nil {
		return err
	}
	files := paperFiles(dir, s.exp, fig != nil)
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
	writePaperMarkdown(&md, s.exp, res)
	return atomicfile.WriteFile(files[0], md.Bytes())
}

// writePaperMarkdown writes the Markdown report of an experiment.
func writePaperMarkdown(w io.Writer, e paperExperiment, res *paperResult) {
	fmt.Fprintf(w, "# nnbound paper %s\n\n", e)
	fmt.Fprintf(w, "%s; %d runs per row, seed %d, QC set `%s`, weights `%s`.\n", res.Mode, res.Runs, res.Seed, res.QC, res.Weights)
	fmt.Fprintf(w, "Made by `%s`.\n\n", res.Command)
	paperTable(e, res.Rows).WriteMarkdown(w)
	fmt.Fprintln(w, "\nColumns: the gammas and mean/max/min of T = ln(bound^2) - ln(error^2) over the evaluation grid,")
	fmt.Fprintln(w, "averaged over the certified runs, and the mean run time; then the number of runs certified, the mean")
	fmt.Fprintln(w, "certified bound on ||f1 - f2||, the mean largest error found, and the median of their ratio.")
	if ref, ok := paperReference[e]; ok {
		fmt.Fprintf(w, "\nThe paper's %s (MOSEK; per the authors' script, unit objective weights), for comparison:\n\n", experimentTitles[e])
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

// paperFigure draws the figure of an experiment: the worst-case sweep, or
// the certificate of the first run (at l = 2 when there is one).
func paperFigure(s *paperSetup, tasks []paperTask, certs []*certify.Certificate, res *paperResult) (*report.Figure, error) {
	if s.exp == expSweep {
		se := report.SweepSeries{}
		for _, r := range res.Rows {
			se.X = append(se.X, float64(r.FracBits))
			se.Bound = append(se.Bound, float64(r.Bound))
			se.Error = append(se.Error, float64(r.Observed))
		}
		return report.SweepFigure(report.Sweep{Title: fmt.Sprintf("Mean worst case over %d random l = 2 networks", res.Runs),
			XLabel: "fractional bits FB of the quantised copy", Series: []report.SweepSeries{se}, Chosen: math.NaN()})
	}
	pick := -1
	for i, t := range tasks {
		if certs[i] != nil && certs[i].Certified && (pick < 0 || (t.layers == 2 && tasks[pick].layers != 2)) {
			pick = i
		}
	}
	if pick < 0 {
		return nil, nil // nothing certified: no figure
	}
	t := tasks[pick]
	f1, f2, o, err := s.instance(t)
	if err != nil {
		return nil, err
	}
	title := fmt.Sprintf("%s example: l = %d, network seed %d", experimentTitles[s.exp], t.layers, netSeed(s.seed, t.layers, t.run))
	return certFigure(f1, f2, s.box, o, certs[pick], title)
}

// paperTable returns the table of an experiment: the paper's columns, then
// nnbound's.
func paperTable(e paperExperiment, rows []paperRow) *report.Table {
	first := "l"
	if e == expSweep {
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
		if e == expSweep {
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
