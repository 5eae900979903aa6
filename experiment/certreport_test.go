package experiment

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// TestCertReport checks the figure line of the text, the plot of the
// JSON, that a failed figure comes after the full certificate, that
// an uncertified certificate draws nothing, and the sdp line of an SDP
// the time budget stopped before it was built or skipped on every piece.
func TestCertReport(t *testing.T) {
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	opts := certjob.Default()
	c := &certify.Certificate{Status: certify.Certified, Bound: 0.5, RootBound: 0.5,
		ObservedError: 0.25, X1: []float64{1}, X2: []float64{0.75}, Method: certify.MethodSDP, Source: certify.MethodSDP}
	file := filepath.Join(t.TempDir(), "c.svg")
	draw := func() (*report.Figure, error) {
		return report.ErrorCurve(report.Curve{X: []float64{-1, 1}, Error: []float64{0.1, 0.25}, Bound: []float64{0.5, 0.5}})
	}
	bad := errors.New("no data")
	noDraw := func() (*report.Figure, error) { return nil, bad }
	drew := false
	spy := func() (*report.Figure, error) { drew = true; return draw() }
	failed := &certify.Certificate{Status: certify.SolverFailed, Bound: 1, ObservedError: 0.25, X1: []float64{1}, X2: []float64{1}}
	// The time budget ended while the root's SDP was built: no order to print.
	unbuilt := *c
	unbuilt.Source, unbuilt.TimeBudgetHit, unbuilt.SDP = certify.MethodPropagation, true, certify.SDPStats{Solves: 1}
	// The refinement bounded pieces, the SDP skipped on each: none was built.
	skipped := *c
	skipped.Source, skipped.SDP = certify.MethodPropagation, certify.SDPStats{Solves: 44}
	skipped.SDPSkipped = certify.SDPSkip{Why: certify.SkipClose, Detail: "bound propagation is within the target ratio"}
	// Seven pieces bounded, none kept but the box: the JSON counts both.
	bounded := *c
	bounded.Bounded = 7

	for _, tc := range []struct {
		name string
		c    *certify.Certificate
		r    CertReport
		want string // in the output
		err  error  // wrapped by the error, nil for none
	}{
		{"text", c, CertReport{Plot: file, Draw: draw, HideTimes: true}, "figure          " + file, nil},
		{"json", c, CertReport{JSON: true, Plot: file, Draw: draw, Compression: &CompressionRecord{}}, `"plot": "` + file, nil},
		{"no figure", c, CertReport{Plot: file, Draw: noDraw}, "certified", bad},
		{"not certified", failed, CertReport{Plot: file, Draw: spy}, "certified", nil},
		{"SDP not built", &unbuilt, CertReport{HideTimes: true}, "sdp             not built    (QC set default, stopped by the time budget", nil},
		{"pieces bounded", &bounded, CertReport{JSON: true}, `"pieces": 1,
  "bounded": 7,`, nil},
		{"SDP skipped on the pieces", &skipped, CertReport{HideTimes: true}, "sdp             none         (SDP skipped", nil},
	} {
		var out bytes.Buffer
		tc.c.Inputs, tc.c.QC = opts.Inputs(box), opts.QC
		err := tc.r.Write(&out, tc.c)
		if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.err)
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: no %q in\n%s", tc.name, tc.want, out.String())
		}
	}
	if drew {
		t.Error("an uncertified certificate's figure was drawn")
	}
}
