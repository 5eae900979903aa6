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

// NewSummary returns the Summary of c for inputs paired by p. With
// x2 = x1, gamma_x multiplies ||x1 - x2||^2 = 0: any value holds, so it is
// left out (null).
func NewSummary(c *certify.Certificate, p spec.Pairing) Summary {
	k := Summary{Certified: c.Certified, Status: c.Status.String(), Bound: report.Number(c.Bound),
		ObservedError: report.Number(c.ObservedError), Ratio: report.Number(c.Ratio()), Source: c.Source.String(),
		Gamma: nan(), GammaX1: nan(), GammaX2: nan(), GammaX: nan()}
	if c.RootCertified() {
		k.Gamma, k.GammaX1, k.GammaX2, k.GammaX = report.Number(c.Gamma), report.Number(c.GammaX1), report.Number(c.GammaX2), report.Number(c.GammaX)
		if p == spec.SameInput {
			k.GammaX = nan()
		}
	}
	if !c.Certified {
		k.Ratio = nan()
	}
	return k
}

// nan returns a NaN number (null in JSON).
func nan() report.Number { return report.Number(math.NaN()) }
