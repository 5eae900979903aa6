package experiment

import (
	"math"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// Summary is the part of a certificate that every JSON record of
// nnbound holds.
// Numbers that were not computed (a bound that was not certified, gammas
// when only the pieces of a split input set were certified) are null.
type Summary struct {
	Certified     bool          `json:"certified"`
	Status        string        `json:"status"`
	Bound         report.Number `json:"bound"`
	ObservedError report.Number `json:"observed_error"`
	Ratio         report.Number `json:"ratio"`
	Gamma         report.Number `json:"gamma"`
	GammaX1       report.Number `json:"gamma_x1"`
	GammaX2       report.Number `json:"gamma_x2"`
	GammaX        report.Number `json:"gamma_x"`
	// Source is the method whose bound is Bound: sdp, or interval (bound
	// propagation's output enclosure, tighter or the SDP failed).
	Source string `json:"source"`
}

// NewSummary returns the Summary of c. With x2 = x1, gamma_x multiplies
// ||x1 - x2||^2 = 0: any value holds, so it is left out (null).
func NewSummary(c *certify.Certificate) Summary {
	p := c.Inputs.Pairing
	k := Summary{Certified: c.Certified(), Status: c.Status.String(), Bound: report.Number(c.Bound),
		ObservedError: report.Number(c.ObservedError), Ratio: report.Number(c.Ratio()), Source: c.Source.String(),
		Gamma: nan(), GammaX1: nan(), GammaX2: nan(), GammaX: nan()}
	if c.RootCertified() {
		k.Gamma, k.GammaX1, k.GammaX2, k.GammaX = report.Number(c.Gamma), report.Number(c.GammaX1), report.Number(c.GammaX2), report.Number(c.GammaX)
		if p == spec.SameInput {
			k.GammaX = nan()
		}
	}
	if !c.Certified() {
		k.Ratio = nan()
	}
	return k
}

// Record is the JSON form of a certificate that nnbound prints with
// --json (the schema is documented in docs/json.md).
type Record struct {
	Summary
	// Of says what bound bounds: the norm of the output difference ("2"
	// or "inf", Norm) or one output's difference (Output).
	Of     string `json:"of"`
	Norm   string `json:"norm,omitempty"`
	Output *int   `json:"output,omitempty"`
	// OutputBounds are the bounds of each output under the inf-norm.
	OutputBounds []report.Number `json:"output_bounds,omitempty"`
	// Method is the method asked for (Summary.Source: the one whose
	// bound is bound).
	Method string `json:"method"`
	// Arith is the arithmetic the bound covers: "real" (exact reals,
	// float64-checked) or "float32" (also any float32 evaluation).
	Arith string `json:"arith"`
	// Fallbacks counts the SDPs that failed and were replaced by bound
	// propagation (Reason says more). Reason is the certificate's Reason
	// when it is not certified, its Note when it is.
	Fallbacks int           `json:"fallbacks"`
	Reason    string        `json:"reason,omitempty"`
	Margin    report.Number `json:"margin"`
	RootBound report.Number `json:"root_bound"`
	// SDPGammas are the root SDP's own checked gammas (null when no SDP
	// passed the check): the gammas above unless bound propagation gave
	// the bound.
	SDPGammas *GammasRecord `json:"sdp_gammas"`
	// Pieces are the pieces kept; Bounded the pieces bounded
	// (certify.Certificate.Bounded: the box, then both halves of every
	// split, over every output for the inf-norm of chains), which
	// --max-pieces caps.
	Pieces  int `json:"pieces"`
	Bounded int `json:"bounded"`
	// TimeBudgetHit reports that the time budget stopped the splitting
	// (certify.Certificate.TimeBudgetHit); absent otherwise.
	TimeBudgetHit bool `json:"time_budget_hit,omitempty"`
	// Stopped says why the refinement ended (certify.Stop); absent when
	// there was none. StopNote says it in words, with the pieces it went
	// through, as the text's stopped line does; absent with it.
	Stopped  string `json:"stopped,omitempty"`
	StopNote string `json:"stop_note,omitempty"`
	// SDPSkipped says why the SDP of the whole input set was not run
	// (certify.Certificate.SDPSkipped); absent when it was.
	SDPSkipped string      `json:"sdp_skipped,omitempty"`
	WorstX1    []float64   `json:"worst_x1"`
	WorstX2    []float64   `json:"worst_x2"`
	Input      InputRecord `json:"input"`
	QC         string      `json:"qc"`
	SDP        SDPRecord   `json:"sdp"`
	Seconds    float64     `json:"seconds"`
	// CPUSeconds is the process's CPU time, when measured (CertReport.CPU).
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	// Interrupted reports that a signal stopped the work
	// (CertReport.Interrupted).
	Interrupted bool `json:"interrupted,omitempty"`
	// Plot is the figure the command wrote, if any.
	Plot string `json:"plot,omitempty"`
	// Compression is the report of quantise or prune --certify, if any.
	Compression *CompressionRecord `json:"compression,omitempty"`
}

// GammasRecord holds the four gammas of the root inequality; GammaX is null
// when x2 = x1, where it multiplies zero.
type GammasRecord struct {
	Gamma   report.Number `json:"gamma"`
	GammaX1 report.Number `json:"gamma_x1"`
	GammaX2 report.Number `json:"gamma_x2"`
	GammaX  report.Number `json:"gamma_x"`
}

// newGammasRecord returns g for inputs paired by p.
func newGammasRecord(g certify.Gammas, p spec.Pairing) *GammasRecord {
	j := &GammasRecord{Gamma: report.Number(g.Gamma), GammaX1: report.Number(g.GammaX1), GammaX2: report.Number(g.GammaX2), GammaX: report.Number(g.GammaX)}
	if p == spec.SameInput {
		j.GammaX = nan()
	}
	return j
}

// InputRecord describes the input set of a certificate.
type InputRecord struct {
	Lo        []float64 `json:"lo"`
	Hi        []float64 `json:"hi"`
	Pairing   string    `json:"pairing"`
	FracBits  int       `json:"frac_bits,omitempty"`
	Quantiser string    `json:"quantiser,omitempty"`
}

// NewInputRecord describes the input set in.
func NewInputRecord(in spec.Inputs) InputRecord {
	j := InputRecord{Lo: in.Box.Lo, Hi: in.Box.Hi, Pairing: in.Pairing.String()}
	if in.Pairing == spec.QuantisedInput {
		j.FracBits = in.Quant.FracBits
		j.Quantiser = in.Quant.String()
	}
	return j
}

// SDPRecord describes the SDPs solved for a certificate.
type SDPRecord struct {
	Size       int           `json:"size"`
	Variables  int           `json:"variables"`
	Solves     int           `json:"solves"`
	Iterations int           `json:"iterations"`
	Status     string        `json:"status"`
	Objective  report.Number `json:"objective"`
	Seconds    float64       `json:"seconds"`
}

// NewRecord returns the Record of c.
func NewRecord(c *certify.Certificate) Record {
	j := Record{
		Summary:       NewSummary(c),
		Of:            c.Quantity.String(),
		Method:        c.Method.String(),
		Arith:         c.Arith.String(),
		Fallbacks:     c.Fallbacks,
		Reason:        c.Note,
		Margin:        report.Number(c.Margin),
		RootBound:     report.Number(c.RootBound),
		Pieces:        max(len(c.Pieces), 1),
		Bounded:       c.Bounded,
		TimeBudgetHit: c.TimeBudgetHit,
		Stopped:       stopped(c.Stopped),
		StopNote:      stopNote(c),
		SDPSkipped:    c.SDPSkipped.String(),
		WorstX1:       orEmpty(c.X1),
		WorstX2:       orEmpty(c.X2),
		Input:         NewInputRecord(c.Inputs),
		QC:            c.QC.String(),
		SDP: SDPRecord{Size: c.SDP.Size, Variables: c.SDP.Variables, Solves: c.SDP.Solves,
			Iterations: c.SDP.Iterations, Status: c.SDP.Status.String(),
			Objective: report.Number(c.SDP.Objective), Seconds: c.SDP.Time.Seconds()},
		Seconds: c.Time.Seconds(),
	}
	if !c.RootCertified() {
		j.Margin = nan()
	}
	if !c.Certified() {
		j.Reason = c.Reason
	}
	if c.SDPGammasHold() {
		j.SDPGammas = newGammasRecord(c.SDPGammas, c.Inputs.Pairing)
	}
	if k := oneHot(c.Quantity.C); k >= 0 {
		j.Output = &k
	} else if c.Quantity.C == nil {
		j.Norm = c.Quantity.Norm.String()
	}
	if byOutput(c) { // as documented: --norm inf only
		for _, b := range c.Outputs {
			j.OutputBounds = append(j.OutputBounds, report.Number(b))
		}
	}
	return j
}

// orEmpty returns v, or an empty slice for nil (JSON [] rather than null).
func orEmpty(v []float64) []float64 {
	if v == nil {
		return []float64{}
	}
	return v
}

// oneHot returns K when c is the K-th unit vector, or -1.
func oneHot(c []float64) int {
	k := -1
	for i, v := range c {
		switch {
		case v == 0:
		case v == 1 && k < 0:
			k = i
		default:
			return -1
		}
	}
	return k
}

// nan returns a NaN number (null in JSON).
func nan() report.Number { return report.Number(math.NaN()) }

// stopped returns s in words, or "" for StopNone.
func stopped(s certify.Stop) string {
	if s == certify.StopNone {
		return ""
	}
	return s.String()
}
