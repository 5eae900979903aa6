package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// smallestWidths returns, for each level, the smallest FB whose certified
// bound is at most target.
func smallestWidths(rows []sweepRow, levels []pruneLevel, target float64) []sweepChoice {
	out := make([]sweepChoice, len(levels))
	for li, l := range levels {
		out[li] = sweepChoice{Prune: l.String(), Bound: nan()}
		for _, r := range rows {
			if r.level != li || !r.Certified || float64(r.Bound) > target {
				continue
			}
			if out[li].FracBits == 0 || r.FracBits < out[li].FracBits {
				out[li].FracBits, out[li].Bound = r.FracBits, r.Bound
			}
		}
	}
	return out
}

// writeSweep prints the sweep table and the answer to --target-error.
func writeSweep(w io.Writer, m *model, box spec.Box, f *sweepFlags, levels []pruneLevel, j sweepJSON) error {
	input := "the quantised copy gets the input quantised likewise, x2 = q(x1)"
	if f.pairing == "same" {
		input = "the quantised copy gets the same input, x2 = x1"
	}
	fmt.Fprintf(w, "nnbound sweep: %s, %s\ninput box %s; %s\n\n", m.describe(), sizes(m.Net), describeBox(box), input)
	header := []string{"FB", "certified bound", "observed error", "ratio", "time"}
	if len(levels) > 1 {
		header = append([]string{"pruned"}, header...)
	}
	t := report.NewTable(header...)
	for _, r := range j.Rows {
		bound, rt := report.Float(float64(r.Bound), 4), ratio(r.Ratio)
		if !r.Certified {
			bound = "not certified"
		}
		when := report.Seconds(r.Seconds)
		if hideTimes {
			when = "-"
		}
		cells := []string{fmt.Sprint(r.FracBits), bound, report.Float(float64(r.ObservedError), 4), rt, when}
		if len(levels) > 1 {
			cells = append([]string{r.Prune}, cells...)
		}
		t.AddRow(cells...)
	}
	t.Align = make([]report.Align, len(header))
	for i := range t.Align {
		t.Align[i] = report.Right
	}
	if len(levels) > 1 {
		t.Align[0] = report.Left
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	if f.target > 0 {
		fmt.Fprintln(w)
		for _, c := range j.Smallest {
			who := ""
			if len(levels) > 1 {
				who = " (pruned " + c.Prune + ")"
			}
			if c.FracBits == 0 {
				fmt.Fprintf(w, "no FB tried%s has a certified bound <= %s\n", who, report.Float(f.target, 4))
				continue
			}
			fmt.Fprintf(w, "smallest FB%s with certified bound <= %s: %d (bound %s)\n", who, report.Float(f.target, 4), c.FracBits, report.Float(float64(c.Bound), 4))
		}
	}
	if j.Plot != "" {
		fmt.Fprintf(w, "\nfigure: %s (bound and error against FB, log scale)\n", j.Plot)
	}
	return nil
}

// sweepFigure draws the bound and the error against FB, one series per
// pruning level.
func sweepFigure(path string, rows []sweepRow, levels []pruneLevel, target float64, chosen []sweepChoice) (*report.Figure, error) {
	s := report.Sweep{Title: filepath.Base(path) + ": certified bound and observed error", Target: target, Chosen: math.NaN()}
	for li, l := range levels {
		se := report.SweepSeries{}
		if len(levels) > 1 {
			se.Name = "pruned " + l.String()
		}
		for _, r := range rows {
			if r.level == li {
				se.X = append(se.X, float64(r.FracBits))
				b := float64(r.Bound)
				if !r.Certified {
					b = math.NaN()
				}
				se.Bound = append(se.Bound, b)
				se.Error = append(se.Error, float64(r.ObservedError))
			}
		}
		s.Series = append(s.Series, se)
	}
	if len(levels) == 1 && len(chosen) == 1 && chosen[0].FracBits > 0 {
		s.Chosen = float64(chosen[0].FracBits)
	}
	return report.SweepFigure(s)
}

// saveSweepFigure draws the sweep j with its target error (see
// sweepFigure) to file and returns its name, or "" with a note on stderr
// when there is nothing to draw.
func saveSweepFigure(file string, j sweepJSON, levels []pruneLevel, target float64, stderr io.Writer) (string, error) {
	fig, err := sweepFigure(j.Model, j.Rows, levels, target, j.Smallest)
	switch {
	case errors.Is(err, report.ErrData):
		fmt.Fprintf(stderr, "nnbound: no figure: nothing positive to draw on a log scale\n")
		return "", nil
	case err != nil:
		return "", err
	}
	if err := fig.Save(file); err != nil {
		return "", err
	}
	return file, nil
}
