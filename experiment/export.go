package experiment

import (
	"fmt"
	"io"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/spec"
)

// ExportRecord is the JSON form of the summary of "nnbound export": the
// file written, the networks, the SDP's size and where its gammas are.
type ExportRecord struct {
	File      string      `json:"file"`
	Format    string      `json:"format"`
	Networks  string      `json:"networks"`
	Variables int         `json:"variables"`
	LMIOrder  int         `json:"lmi_order"`
	Input     InputRecord `json:"input"`
	QC        string      `json:"qc"`
	// Gammas name the leading variables of the SDP, in order.
	Gammas []string `json:"gammas"`
	// Where says where each gamma is in a solver's solution.
	Where string `json:"where"`
}

// NewExportRecord returns the record of the root SDP p of the networks
// what, over box with opts, written to file in format.
func NewExportRecord(file, what string, box spec.Box, opts certjob.Job, p *certify.RootProblem, format certify.ExportFormat) ExportRecord {
	return ExportRecord{File: file, Format: format.String(), Networks: what, Variables: p.NumVars(), LMIOrder: p.LMIOrder(),
		Input: NewInputRecord(opts.Inputs(box)), QC: opts.QC.String(), Gammas: p.GammaNames, Where: p.GammaNote(format)}
}

// WriteText prints r for people: the file written, the networks, the
// SDP's size and input box, and where its gammas are.
func (r ExportRecord) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "wrote %s (%s): the SDP of %s\n", r.File, r.Format, r.Networks)
	fmt.Fprintf(w, "  %d variables, LMI of order %d, %s\n", r.Variables, r.LMIOrder, spec.Box{Lo: r.Input.Lo, Hi: r.Input.Hi}.Describe())
	_, err := fmt.Fprintf(w, "  gammas: %s\n", r.Where)
	return err
}

// ExportComments returns the header comment of the root SDP p of the
// networks what, exported over box with o in format.
func ExportComments(what string, box spec.Box, o certjob.Job, p *certify.RootProblem, format certify.ExportFormat) []string {
	c := []string{
		"nnbound: the root SDP certifying a bound on ||f1(x1) - f2(x2)||",
		"for " + what + ",",
		"input box " + box.Describe() + ", " + PairingNote(o.Inputs(box)) + ", QC set " + o.QC.String() + ", weights " + o.Weights.String() + ".",
		"A solution gives ||f1 - f2||^2 <= gamma + gamma_x1 ||x1||^2 + gamma_x2 ||x2||^2 + gamma_x ||x1 - x2||^2",
		"with " + p.GammaNote(format) + ".",
	}
	if format == certify.SDPA {
		c = append(c, "(y is the variable of the SDPA form: CSDP's y, SDPA's xVec.)")
	} else {
		c = append(c, "(x are the scalar variables, numbered from 0 as in CBF.)")
	}
	c = append(c, "Not certified: nnbound's soundness check has not been applied to such a solution.")
	return c
}
