package experiment

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// sweepRows is a small sweep of one level: FB 2 not certified, FB 3 with
// bound 0.5 over an observed error 0.25.
func sweepRows() []SweepRow {
	return []SweepRow{
		{FracBits: 2, Prune: "none", Summary: Summary{Bound: 2, ObservedError: 1}},
		{FracBits: 3, Prune: "none", Summary: Summary{Certified: true, Bound: 0.5, ObservedError: 0.25, Ratio: 2}},
	}
}

// TestSweepWriteText checks the heading, the width column, the answer to
// the target and the lines of files saved and drawn, for fixed-point and
// int8 copies.
func TestSweepWriteText(t *testing.T) {
	levels := []PruneLevel{{}}
	j := SweepResult{Rows: sweepRows(), Saved: "best.json", Plot: "s.svg"}
	j.Smallest = SmallestWidths(j.Rows, levels, 1)
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	for _, c := range []struct {
		name string
		t    SweepText
		want []string
	}{
		{"fixed", SweepText{Network: "m.onnx, 1-2-1", Box: box, Levels: levels, Target: 1, HideTimes: true},
			[]string{"nnbound sweep: m.onnx, 1-2-1\n", "x2 = q(x1)", "not certified", "smallest FB with certified bound <= 1: 3 (bound 0.5)",
				"saved: best.json", "figure: s.svg (bound and error against FB"}},
		{"int8", SweepText{Box: box, Int8: true, Levels: levels, Target: 0.1},
			[]string{"the int8 copy", "bits", "no bits tried has a certified bound <= 0.1"}},
		{"same", SweepText{Box: box, SameInput: true, Levels: levels}, []string{"the same input, x2 = x1"}},
	} {
		var buf bytes.Buffer
		jc := j
		if c.name == "int8" {
			jc.Smallest = SmallestWidths(j.Rows, levels, 0.1)
		}
		if err := jc.WriteText(&buf, c.t); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, buf.String())
			}
		}
		if c.name == "same" && strings.Contains(buf.String(), "smallest") {
			t.Errorf("same: a target line with no target:\n%s", buf.String())
		}
	}
}

// TestSweepSaveFigure: a sweep is drawn to the file and named in Plot;
// one with nothing positive to draw is report.ErrData and leaves Plot.
func TestSweepSaveFigure(t *testing.T) {
	levels := []PruneLevel{{}}
	file := filepath.Join(t.TempDir(), "s.svg")
	j := SweepResult{Model: "m.onnx", Rows: sweepRows()}
	if err := j.SaveFigure(file, levels, 1); err != nil || j.Plot != file {
		t.Fatalf("SaveFigure: %v, Plot %q", err, j.Plot)
	}
	empty := SweepResult{Model: "m.onnx", Rows: []SweepRow{{FracBits: 2}}}
	if err := empty.SaveFigure(file, levels, 0); !errors.Is(err, report.ErrData) || empty.Plot != "" {
		t.Errorf("nothing to draw: %v, Plot %q", err, empty.Plot)
	}
}

// TestNewSweepResult: without a target nothing is chosen and the sweep
// counts as met; with one, the smallest certified width under it is.
func TestNewSweepResult(t *testing.T) {
	levels := []PruneLevel{{}}
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	j := NewSweepResult("m.onnx", box, "same", "default", sweepRows(), levels, 0)
	if j.Smallest != nil || !j.Met() || j.Input.Pairing != "same" || j.Model != "m.onnx" {
		t.Errorf("no target: %+v", j)
	}
	j = NewSweepResult("m.onnx", box, "same", "default", sweepRows(), levels, 1)
	if len(j.Smallest) != 1 || j.Smallest[0].FracBits != 3 || !j.Met() || float64(j.TargetError) != 1 {
		t.Errorf("target 1: %+v", j)
	}
	if j = NewSweepResult("m.onnx", box, "same", "default", sweepRows(), levels, 0.1); j.Met() {
		t.Errorf("target 0.1 met: %+v", j.Smallest)
	}
}

// TestPruneLevels: neuron counts then sparsities, or "none" alone.
func TestPruneLevels(t *testing.T) {
	if got := PruneLevels(nil, nil); len(got) != 1 || got[0].String() != "none" {
		t.Errorf("none: %v", got)
	}
	got := PruneLevels([]int{2, 4}, []float64{0.5})
	if len(got) != 3 || got[0].String() != "2 neurons" || got[1].String() != "4 neurons" || got[2].String() != "50% of weights" {
		t.Errorf("levels: %v", got)
	}
}

// TestSweepSaveBest checks that SaveBest saves the copy at the smallest
// width meeting the target (FB 3 here), refuses when none meets it, and
// that HideTimes zeroes the rows' times.
func TestSweepSaveBest(t *testing.T) {
	levels := []PruneLevel{{}}
	f := randnet.Paper(1, 1, 1, 4, 1)
	var asked int
	path := filepath.Join(t.TempDir(), "best.json")
	save := func(q quantise.Format) error {
		asked = q.FracBits
		net, err := levels[0].Compress(q)(f)
		if err != nil {
			return err
		}
		return modelfile.Save(path, net)
	}
	j := NewSweepResult("m.json", spec.Box{Lo: []float64{-1}, Hi: []float64{1}}, "same", "paper", sweepRows(), levels, 1)
	if err := j.SaveBest(path, quantise.Trunc, save); err != nil {
		t.Fatal(err)
	}
	if asked != 3 || j.Saved != path {
		t.Errorf("SaveBest made FB %d and recorded %q, want FB 3 and %q", asked, j.Saved, path)
	}
	if _, _, err := modelfile.Load(path, modelfile.Options{}); err != nil {
		t.Errorf("the saved copy does not load: %v", err)
	}
	none := NewSweepResult("m.json", spec.Box{Lo: []float64{-1}, Hi: []float64{1}}, "same", "paper", sweepRows(), levels, 0.1)
	if err := none.SaveBest(path, quantise.Trunc, save); err == nil || none.Saved != "" {
		t.Errorf("SaveBest with no width meeting the target: error %v, saved %q", err, none.Saved)
	}
	j.Rows[0].Seconds = 1.5
	j.HideTimes()
	if j.Rows[0].Seconds != 0 {
		t.Errorf("HideTimes left %v s", j.Rows[0].Seconds)
	}
}
