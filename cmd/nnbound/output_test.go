package main

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/spec"
)

// TestWriteCertificate pins the text of certificates whose lines depend
// on how the solver fared (the command goldens normalise them away): the
// bound from bound propagation, fallbacks, the inf-norm's outputs, a
// split box without root gammas, the trivial bound of bounded outputs,
// and no certificate at all.
func TestWriteCertificate(t *testing.T) {
	box := spec.Box{Lo: []float64{-1, 0}, Hi: []float64{1, 0.5}}
	base := func() *certify.Certificate {
		c := &certify.Certificate{Status: certify.Certified, Bound: 0.5, RootBound: 0.5,
			ObservedError: 0.25, X1: []float64{1, 0.5}, X2: []float64{0.75, 0.5}, Method: certify.MethodSDP, Source: certify.MethodSDP,
			SDP: certify.SDPStats{Size: 12, Variables: 40, Solves: 1, Iterations: 20, Time: time.Second}}
		c.Gamma, c.GammaX1, c.GammaX2, c.GammaX = 0.25, 1e-6, 2e-6, 3
		return c
	}
	quantised := certjob.Default()
	quantised.Pairing = spec.QuantisedInput
	same := certjob.Default()
	same.Pairing = spec.SameInput

	interval := base()
	interval.Source, interval.Fallbacks = certify.MethodPropagation, 2
	interval.Note = "the SDP failed on 2 pieces; their bounds are bound propagation's"
	interval.Pieces = make([]certify.Piece, 3)

	inf := base()
	inf.Quantity.Norm, inf.Outputs = spec.NormInf, []float64{0.125, 0.5, 0.25}
	infOpts := same
	infOpts.Norm = spec.NormInf

	output := base()
	output.Quantity.C = []float64{0, 1}
	outOpts := same
	outOpts.C = output.Quantity.C

	pieces := base()
	pieces.RootBound = math.Inf(1) // the root SDP failed
	pieces.Pieces = make([]certify.Piece, 4)

	byInterval := base()
	byInterval.Method, byInterval.Source, byInterval.SDP = certify.MethodPropagation, certify.MethodPropagation, certify.SDPStats{}
	byInterval.Gammas = certify.Gammas{Gamma: 0.25}

	trivial := base()
	trivial.Bound, trivial.Trivial = 2*math.Sqrt2, 2*math.Sqrt2

	failed := &certify.Certificate{Status: certify.SolverFailed, Reason: "the solver stalled", Bound: math.Inf(1),
		ObservedError: 0.25, X1: []float64{1, 0.5}, X2: []float64{1, 0.5}}

	var out bytes.Buffer
	for _, tc := range []struct {
		name string
		c    *certify.Certificate
		o    certjob.Job
	}{
		{"2-norm, quantised input", base(), quantised},
		{"bound from bound propagation, with fallbacks", interval, quantised},
		{"inf-norm", inf, infOpts},
		{"one output", output, outOpts},
		{"root SDP failed, pieces certified", pieces, same},
		{"--method interval", byInterval, same},
		{"the trivial bound of tanh outputs", trivial, quantised},
		{"not certified", failed, same},
	} {
		out.WriteString("== " + tc.name + "\n")
		tc.c.Inputs, tc.c.QC = tc.o.Inputs(box), tc.o.QC
		if err := experiment.WriteCertificate(&out, tc.c, true); err != nil {
			t.Fatal(err)
		}
	}
	checkGolden(t, filepath.Join("testdata", "ux", "certificates.txt"), out.Bytes())
}

// TestTrivialNote: the sweep notes the widths whose bound is the trivial
// one of the output activations' ranges, rounded up (2.828 would be below
// 2 sqrt(2)), and nothing when there are none.
func TestTrivialNote(t *testing.T) {
	if got := experiment.TrivialNote([]experiment.SweepRow{{FracBits: 2}}); got != "" {
		t.Errorf("no trivial row: got %q", got)
	}
	got := experiment.TrivialNote([]experiment.SweepRow{{FracBits: 2}, {FracBits: 3, Trivial: 2 * math.Sqrt2}, {FracBits: 4, Trivial: 2 * math.Sqrt2}})
	want := "note: at FB 3, 4 the bound is the trivial 2.829 that the ranges of the output activations give alone"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
