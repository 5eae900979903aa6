package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// TestStopNote: the JSON's stop_note is the note of the text's stopped
// line, absent when the input set was not refined; for the inf-norm
// certified output by output it counts the pieces bounded over all
// outputs (Certificate.Bounded), as the piece cap does, not the one kept.
func TestStopNote(t *testing.T) {
	box := spec.Box{Lo: []float64{-1, 0}, Hi: []float64{1, 0.5}}
	cert := func(stop certify.Stop) *certify.Certificate {
		return &certify.Certificate{Status: certify.Certified, Bound: 0.5, RootBound: 0.5, ObservedError: 0.25,
			Method: certify.MethodSDP, Source: certify.MethodSDP, SDP: certify.SDPStats{Size: 12, Variables: 40, Solves: 2, Iterations: 20}, Stopped: stop, Bounded: 7, Pieces: make([]certify.Piece, 4),
			Inputs: spec.Inputs{Box: box, Pairing: spec.SameInput}}
	}
	inf := cert(certify.StopBudget)
	inf.Quantity.Norm, inf.Outputs, inf.Pieces, inf.Bounded, inf.TimeBudgetHit = spec.NormInf, []float64{0.5, 0.25}, nil, 14, true
	infCap := cert(certify.StopCap)
	infCap.Quantity.Norm, infCap.Outputs, infCap.Pieces, infCap.Bounded = spec.NormInf, []float64{0.5, 0.25}, nil, 14
	for _, tc := range []struct {
		name string
		c    *certify.Certificate
		want string
	}{
		{"not refined", cert(certify.StopNone), ""},
		{"target", cert(certify.StopTarget), "after 4 piece(s): bound / observed error within --target-ratio"},
		{"cap", cert(certify.StopCap), "7 piece(s) bounded, 4 kept: --max-pieces"},
		{"inf-norm, time budget", inf, "after 14 piece(s) bounded over 2 outputs: --timeout; 0 for none"},
		{"inf-norm, cap", infCap, "14 piece(s) bounded over 2 outputs: --max-pieces caps each output's"},
	} {
		var text bytes.Buffer
		if err := WriteCertificate(&text, tc.c, true); err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(NewRecord(tc.c))
		if err != nil {
			t.Fatal(err)
		}
		var rec map[string]any
		if err := json.Unmarshal(js, &rec); err != nil {
			t.Fatal(err)
		}
		got, present := rec["stop_note"]
		switch {
		case tc.want == "" && present:
			t.Errorf("%s: stop_note %q, want none", tc.name, got)
		case tc.want != "" && got != tc.want:
			t.Errorf("%s: stop_note %q, want %q", tc.name, got, tc.want)
		case tc.want != "" && !strings.Contains(text.String(), fmt.Sprintf("stopped         %-12s (%s)\n", tc.c.Stopped.String()+" ", tc.want)):
			t.Errorf("%s: the text's stopped line is not the stop note:\n%s", tc.name, text.String())
		case tc.want == "" && strings.Contains(text.String(), "stopped"):
			t.Errorf("%s: a stopped line without refinement:\n%s", tc.name, text.String())
		}
	}
	// The time budget's remark on the sdp line counts the same pieces.
	var text bytes.Buffer
	if err := WriteCertificate(&text, inf, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "stopped by the time budget after 14 piece(s) bounded over 2 outputs") {
		t.Errorf("inf-norm, time budget: the sdp line counts other pieces:\n%s", text.String())
	}
}

// TestGraphCutNote: a graph's certificate cut short prints its note (the
// bound that stands), as its JSON reason holds it; a chain's note
// without an SDP solve is not printed.
func TestGraphCutNote(t *testing.T) {
	note := "the time budget ran out during the full pass over the input set: the bound is the first cheap pass's"
	c := &certify.Certificate{Status: certify.Certified, Bound: 0.5, RootBound: 0.5, ObservedError: 0.25,
		Method: certify.MethodSDP, Source: certify.MethodPropagation, Stopped: certify.StopBudget, TimeBudgetHit: true,
		Note: note, SDPSkipped: certify.SDPSkip{Why: certify.SkipGraph},
		Inputs: spec.Inputs{Box: spec.Box{Lo: []float64{0}, Hi: []float64{1}}, Pairing: spec.SameInput}}
	for _, tc := range []struct {
		name  string
		why   certify.Skip
		shown bool
	}{{"graph", certify.SkipGraph, true}, {"graph, float32", certify.SkipGraphFloat32, true}, {"chain, SDP skipped", certify.SkipClose, false}} {
		c.SDPSkipped.Why = tc.why
		var text bytes.Buffer
		if err := WriteCertificate(&text, c, true); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(text.String(), "note            "+note+"\n"); got != tc.shown {
			t.Errorf("%s: note printed %v, want %v:\n%s", tc.name, got, tc.shown, text.String())
		}
		if rec := NewRecord(c); rec.Reason != note {
			t.Errorf("%s: JSON reason %q, want the note", tc.name, rec.Reason)
		}
	}
}

// TestBoundFromNotRun: a certificate whose SDP was not run says why on
// its bound from line and in the JSON's sdp_skipped, never that
// propagation was tighter than the SDP or, for float networks, the int8
// reason; one whose SDP ran and was looser says so.
func TestBoundFromNotRun(t *testing.T) {
	box := spec.Box{Lo: []float64{-1, 0}, Hi: []float64{1, 0.5}}
	for _, tc := range []struct {
		name  string
		skip  certify.Skip
		solve int
		want  string
	}{
		{"SDP ran, looser", certify.SkipNone, 1, "tighter than the SDP there"},
		{"root pass cut by the budget", certify.SkipBudget, 1, "SDP not run: the time budget ran out before it"},
		{"inf-norm cut, first pass", certify.SkipBudget, 0, "SDP not run: the time budget ran out before it"},
		{"cancelled", certify.SkipCancelled, 0, "SDP not run: the run was cancelled before it"},
		{"cheap pieces spent the work", certify.SkipPieces, 163, "SDP not run: the pieces of bound propagation spent the work budget first"},
		{"int8", certify.SkipQuantised, 0, "SDP not run: it models int8 quantisers only for the 2-norm of two or more outputs"},
	} {
		c := &certify.Certificate{Status: certify.Certified, Bound: 0.5, RootBound: 0.5, ObservedError: 0.25,
			Method: certify.MethodSDP, Source: certify.MethodPropagation, SDP: certify.SDPStats{Solves: tc.solve},
			SDPSkipped: certify.SDPSkip{Why: tc.skip}, Quantity: spec.Quantity{Norm: spec.NormInf}, Outputs: []float64{0.5, 0.25},
			Inputs: spec.Inputs{Box: box, Pairing: spec.SameInput}}
		var text bytes.Buffer
		if err := WriteCertificate(&text, c, true); err != nil {
			t.Fatal(err)
		}
		line := "bound from      interval     (bound propagation over the input set: " + tc.want + ")\n"
		if !strings.Contains(text.String(), line) {
			t.Errorf("%s: want %q:\n%s", tc.name, line, text.String())
		}
		if tc.skip != certify.SkipQuantised && strings.Contains(text.String(), "int8") {
			t.Errorf("%s: the int8 wording for float networks:\n%s", tc.name, text.String())
		}
		if rec := NewRecord(c); rec.SDPSkipped != c.SDPSkipped.String() || (rec.SDPSkipped == "") != (tc.skip == certify.SkipNone) {
			t.Errorf("%s: JSON sdp_skipped %q", tc.name, rec.SDPSkipped)
		}
	}
}

// TestCertificateColumns checks that the notes of the bound, observed
// error and ratio lines start in one column whatever the numbers, a
// subnormal bound included (3.9e-321 pushed its note one column right),
// and that the printed bound is rounded up: read back, it is at least the
// certified one.
func TestCertificateColumns(t *testing.T) {
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	for _, b := range []float64{0.5, 4.20984, 1.23456789e-10, 3.9525e-321, 1.7e308} {
		c := &certify.Certificate{Status: certify.Certified, Bound: b, RootBound: b, ObservedError: b / 3, X1: []float64{0.5},
			Method: certify.MethodSDP, Source: certify.MethodSDP, Inputs: spec.Inputs{Box: box, Pairing: spec.SameInput}}
		var text bytes.Buffer
		if err := WriteCertificate(&text, c, true); err != nil {
			t.Fatal(err)
		}
		var cols []int
		for _, l := range strings.Split(text.String(), "\n") {
			for _, note := range []string{"certified max of", "found at", "bound / observed error"} {
				if i := strings.Index(l, note); i > 0 {
					cols = append(cols, i)
				}
			}
			if rest, ok := strings.CutPrefix(l, "bound "); ok {
				var got float64
				if _, err := fmt.Sscan(rest, &got); err != nil || got < b {
					t.Errorf("bound %v printed as %q, below it", b, rest)
				}
			}
		}
		if len(cols) != 3 || cols[0] != cols[1] || cols[0] != cols[2] {
			t.Errorf("bound %v: notes start in columns %v:\n%s", b, cols, text.String())
		}
	}
}

// TestCertificateGammasUp checks that the gammas and the trivial bound of
// the text are rounded up like the bound: the inequality printed, read
// back, still holds (round-to-nearest printed 0.02896 for 0.0289634).
func TestCertificateGammasUp(t *testing.T) {
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	const g = 0.0289634
	b := math.Sqrt(g)
	c := &certify.Certificate{Status: certify.Certified, Bound: b, RootBound: b, ObservedError: b / 2, X1: []float64{0.5},
		Gammas: certify.Gammas{Gamma: g, GammaX1: g, GammaX2: g, GammaX: g}, Trivial: b,
		Method: certify.MethodSDP, Source: certify.MethodSDP, Inputs: spec.Inputs{Box: box, Pairing: spec.Independent}}
	var text bytes.Buffer
	if err := WriteCertificate(&text, c, true); err != nil {
		t.Fatal(err)
	}
	want := "gamma 0.02897, gamma_x1 0.02897, gamma_x2 0.02897, gamma_x 0.02897"
	if !strings.Contains(text.String(), want) {
		t.Errorf("want %q (rounded up):\n%s", want, text.String())
	}
	if c.IsTrivial() && !strings.Contains(text.String(), "the trivial "+report.Up(b, 4)+" ") {
		t.Errorf("the trivial bound %v is not rounded up:\n%s", b, text.String())
	}
}
