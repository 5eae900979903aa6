package experiment

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"

	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// NewSweepResult returns the result of the sweep of the model at path
// over box (inputs paired as pairing names, QC set qc) whose certified
// rows are rows. With target > 0 it holds, for each
// level, the smallest width whose certified bound is at most target
// (SmallestWidths).
func NewSweepResult(path string, box spec.Box, pairing, qc string, rows []SweepRow, levels []PruneLevel, target float64) SweepResult {
	j := SweepResult{Model: path, Input: InputRecord{Lo: box.Lo, Hi: box.Hi, Pairing: pairing},
		QC: qc, TargetError: report.Number(math.NaN()), Rows: rows}
	if target > 0 {
		j.TargetError = report.Number(target)
		j.Smallest = SmallestWidths(rows, levels, target)
	}
	return j
}

// Met reports whether some level has a width meeting the target error
// (true when there is no target).
func (j SweepResult) Met() bool {
	return j.Smallest == nil || slices.ContainsFunc(j.Smallest, func(c SweepChoice) bool { return c.FracBits > 0 })
}

// SaveBest saves the copy at the smallest width meeting the target with
// save, given that width's format (with rounding), and records path, the
// file save writes, in Saved. The sweep must have one pruning level with
// a width meeting the target.
func (j *SweepResult) SaveBest(path string, rounding quantise.Rounding, save func(quantise.Format) error) error {
	if len(j.Smallest) != 1 || j.Smallest[0].FracBits == 0 {
		return fmt.Errorf("experiment: no copy to save to %s: want one pruning level with a width meeting the target, have %d levels", path, len(j.Smallest))
	}
	if err := save(quantise.Format{FracBits: j.Smallest[0].FracBits, Rounding: rounding}); err != nil {
		return err
	}
	j.Saved = path
	return nil
}

// HideTimes sets the run time of every row to 0, so that the JSON form
// does not depend on the machine (for golden files).
func (j *SweepResult) HideTimes() {
	for i := range j.Rows {
		j.Rows[i].Seconds = 0
	}
}

// SweepText is what the text report of a sweep (SweepResult.WriteText)
// says beside the result itself.
type SweepText struct {
	// Network describes the model, for example "sin3x.onnx, 1-16-16-1".
	Network string
	Box     spec.Box
	// Int8 is set when the copies are int8 (widths in bits), else they are
	// fixed point (widths in fractional bits FB).
	Int8 bool
	// SameInput is set when a fixed-point copy gets the same input,
	// x2 = x1, rather than the input quantised likewise.
	SameInput bool
	Levels    []PruneLevel
	// Target is the target error whose smallest widths are in
	// SweepResult.Smallest; 0 for none.
	Target    float64
	HideTimes bool // "-" for the run times
}

// WriteText prints the sweep j for people: a heading, the table
// (SweepTable), its notes (TrivialNote, BudgetNote, InterruptNote), the status, the
// smallest width meeting the target, and the files saved and drawn.
func (j SweepResult) WriteText(w io.Writer, t SweepText) error {
	input := "the quantised copy gets the input quantised likewise, x2 = q(x1)"
	width := "FB"
	switch {
	case t.Int8:
		input, width = "the int8 copy (calibrated on the box) gets the same input, x2 = x1", "bits"
	case t.SameInput:
		input = "the quantised copy gets the same input, x2 = x1"
	}
	fmt.Fprintf(w, "nnbound sweep: %s\ninput box %s; %s\n\n", t.Network, t.Box.Describe(), input)
	tab := SweepTable(j.Rows, t.Levels, t.HideTimes)
	tab.Header[len(tab.Header)-5] = width // the width column: FB or bits
	if err := tab.WriteText(w); err != nil {
		return err
	}
	for _, note := range []string{TrivialNote(j.Rows), BudgetNote(j.Rows), InterruptNote(j.Rows)} {
		if note != "" {
			fmt.Fprintf(w, "\n%s\n", note)
		}
	}
	if j.Status != "" {
		fmt.Fprintf(w, "\n%s (stopped by a signal)\n", j.Status)
	}
	if t.Target > 0 && j.Status == "" {
		fmt.Fprintln(w)
		for _, c := range j.Smallest {
			who := ""
			if len(t.Levels) > 1 {
				who = " (pruned " + c.Prune + ")"
			}
			if c.FracBits == 0 {
				fmt.Fprintf(w, "no %s tried%s has a certified bound <= %s\n", width, who, report.Float(t.Target, 4))
				continue
			}
			fmt.Fprintf(w, "smallest %s%s with certified bound <= %s: %d (bound %s)\n", width, who, report.Float(t.Target, 4), c.FracBits, report.Up(float64(c.Bound), 4))
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

// SaveFigure draws the sweep j with its target error (SweepFigure) to
// file and sets j.Plot to it. With nothing positive to draw on a log
// scale it returns an error wrapping report.ErrData and leaves j.Plot.
func (j *SweepResult) SaveFigure(file string, levels []PruneLevel, target float64) error {
	fig, err := SweepFigure(j.Model, j.Rows, levels, target, j.Smallest)
	if err == nil {
		err = fig.Save(file)
	}
	if err == nil {
		j.Plot = file
	}
	return err
}

// SweepFigure draws the bound and the error of the sweep of the model at
// path against FB, one series per pruning level, with the target error
// and the chosen width (SmallestWidths) of a single level.
func SweepFigure(path string, rows []SweepRow, levels []PruneLevel, target float64, chosen []SweepChoice) (*report.Figure, error) {
	s := report.Sweep{Title: filepath.Base(path) + ": certified bound and observed error", Target: target, Chosen: math.NaN()}
	for li, l := range levels {
		se := report.SweepSeries{}
		if len(levels) > 1 {
			se.Name = "pruned " + l.String()
		}
		for _, r := range rows {
			if r.Level == li {
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

// SweepTable returns the table of a sweep's rows: the pruning level when
// there are several, FB, the certified bound, the observed error, their
// ratio and the time ("-" with hideTimes).
func SweepTable(rows []SweepRow, levels []PruneLevel, hideTimes bool) *report.Table {
	header := []string{"FB", "certified bound", "observed error", "ratio", "time"}
	if len(levels) > 1 {
		header = append([]string{"pruned"}, header...)
	}
	t := report.NewTable(header...)
	for _, r := range rows {
		bound, rt := report.Up(float64(r.Bound), 4), report.Ratio(float64(r.Ratio))
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
	return t
}
