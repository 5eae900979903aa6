package experiment

import (
	"strings"
	"testing"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/spec"
)

// TestSweepRowInterrupted: a row whose refinement a signal cut short says
// so in JSON (interrupted) and in the text's notes; a finished one does
// not.
func TestSweepRowInterrupted(t *testing.T) {
	cut := &certify.Certificate{Status: certify.Certified, Bound: 0.5, Stopped: certify.StopCancelled}
	done := &certify.Certificate{Status: certify.Certified, Bound: 0.25, Stopped: certify.StopTarget}
	rows := []SweepRow{newSweepRow("none", 0, 4, cut), newSweepRow("none", 0, 6, done)}
	if !rows[0].Interrupted || rows[1].Interrupted {
		t.Fatalf("interrupted %v, %v; want true, false", rows[0].Interrupted, rows[1].Interrupted)
	}
	if note := InterruptNote(rows); !strings.Contains(note, "at FB 4 ") {
		t.Errorf("note %q, want FB 4 named", note)
	}
	if note := InterruptNote(rows[1:]); note != "" {
		t.Errorf("note %q for a finished row", note)
	}
	var b strings.Builder
	j := SweepResult{Rows: rows}
	if err := j.WriteText(&b, SweepText{Network: "n", Box: spec.Box{Lo: []float64{0}, Hi: []float64{1}}, SameInput: true,
		Levels: []PruneLevel{{}}, HideTimes: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "a signal cut short the refinement at FB 4") {
		t.Errorf("text lacks the note:\n%s", b.String())
	}
}
