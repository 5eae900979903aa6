package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// writeSweep prints the sweep table and the answer to --target-error.
func writeSweep(w io.Writer, m *model, box spec.Box, f *sweepFlags, levels []experiment.PruneLevel, j experiment.SweepResult) error {
	input := "the quantised copy gets the input quantised likewise, x2 = q(x1)"
	width := "FB"
	switch {
	case f.scheme == "int8":
		input, width = "the int8 copy (calibrated on the box) gets the same input, x2 = x1", "bits"
	case f.pairing == "same":
		input = "the quantised copy gets the same input, x2 = x1"
	}
	fmt.Fprintf(w, "nnbound sweep: %s, %s\ninput box %s; %s\n\n", m.describe(), nn.FormatSizes(m.Net.Sizes()), box.Describe(), input)
	t := experiment.SweepTable(j.Rows, levels, hideTimes)
	t.Header[len(t.Header)-5] = width // the width column: FB or bits
	if err := t.WriteText(w); err != nil {
		return err
	}
	for _, note := range []string{experiment.TrivialNote(j.Rows), experiment.BudgetNote(j.Rows)} {
		if note != "" {
			fmt.Fprintf(w, "\n%s\n", note)
		}
	}
	if j.Status != "" {
		fmt.Fprintf(w, "\n%s (stopped by a signal)\n", j.Status)
	}
	if f.target > 0 && j.Status == "" {
		fmt.Fprintln(w)
		for _, c := range j.Smallest {
			who := ""
			if len(levels) > 1 {
				who = " (pruned " + c.Prune + ")"
			}
			if c.FracBits == 0 {
				fmt.Fprintf(w, "no %s tried%s has a certified bound <= %s\n", width, who, report.Float(f.target, 4))
				continue
			}
			fmt.Fprintf(w, "smallest %s%s with certified bound <= %s: %d (bound %s)\n", width, who, report.Float(f.target, 4), c.FracBits, report.Float(float64(c.Bound), 4))
		}
	}
	if j.Saved != "" {
		fmt.Fprintf(w, "saved: %s (the copy at that FB)\n", j.Saved)
	}
	if j.Plot != "" {
		fmt.Fprintf(w, "\nfigure: %s (bound and error against %s, log scale)\n", j.Plot, width)
	}
	return nil
}

// saveSweepFigure draws the sweep j with its target error (see
// experiment.SweepFigure) to file and returns its name, or "" with a note on stderr
// when there is nothing to draw.
func saveSweepFigure(file string, j experiment.SweepResult, levels []experiment.PruneLevel, target float64, stderr io.Writer) (string, error) {
	fig, err := experiment.SweepFigure(j.Model, j.Rows, levels, target, j.Smallest)
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
