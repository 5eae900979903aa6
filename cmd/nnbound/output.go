package main

import (
	"context"
	"io"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/cputime"
	"github.com/nnbound/nnbound/report"
)

// hideTimes replaces run times by "-" (text) and 0 (JSON) in the output of
// the commands that print tables, so that golden files do not depend on
// the machine. Tests set it.
var hideTimes bool

// emitCertificate prints c as experiment.CertReport.Write does, with
// the figure draw makes in plot and comp, the report of the compression
// certified, if any, the process's CPU time, and the mark of an
// interrupted run when ctx was cancelled. It returns errNotCertified when
// c is not certified, so that the command exits with status 1.
func emitCertificate(ctx context.Context, w io.Writer, c *certify.Certificate, asJSON bool,
	comp *experiment.CompressionRecord, plot string, draw func() (*report.Figure, error)) error {
	r := experiment.CertReport{JSON: asJSON, Compression: comp, Plot: plot, Draw: draw, HideTimes: hideTimes,
		Interrupted: ctx.Err() != nil, CPU: cputime.Process()}
	if err := r.Write(w, c); err != nil {
		return err
	}
	if !c.Certified() {
		return errNotCertified
	}
	return nil
}
