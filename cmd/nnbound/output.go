package main

import (
	"fmt"
	"io"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// hideTimes replaces run times by "-" (text) and 0 (JSON) in the output of
// the commands that print tables, so that golden files do not depend on
// the machine. Tests set it.
var hideTimes bool

// emitCertificate draws c's figure with draw into plot (when plot is set
// and c is certified), then prints c as text, with a "figure" line, or as
// JSON, with the figure's file in "plot" and comp, the report of the
// compression certified (quantise and prune), if any. It returns errNotCertified when
// c is not certified, so that the command exits with status 1.
func emitCertificate(w io.Writer, c *certify.Certificate, box spec.Box, opts certjob.Job, asJSON bool,
	comp *experiment.CompressionRecord, plot string, draw func() (*report.Figure, error)) error {
	// A figure that cannot be drawn or written is reported after the
	// certificate is printed, so that the certificate is never lost.
	written := ""
	var figErr error
	if plot != "" && c.Certified {
		fig, err := draw()
		if err == nil {
			err = fig.Save(plot)
		}
		if figErr = err; err == nil {
			written = plot
		}
	}
	if asJSON {
		j := experiment.NewRecord(c, box, opts)
		if hideTimes {
			j.Seconds, j.SDP.Seconds = 0, 0
		}
		j.Plot, j.Compression = written, comp
		if err := report.WriteJSON(w, j); err != nil {
			return err
		}
	} else {
		if err := experiment.WriteCertificate(w, c, box, opts, hideTimes); err != nil {
			return err
		}
		var err error
		switch {
		case written != "":
			_, err = fmt.Fprintf(w, "%-15s %s (%s)\n", "figure", written, experiment.FigureNote(box, opts))
		case plot != "" && figErr == nil:
			_, err = fmt.Fprintf(w, "%-15s none (there is no bound to draw)\n", "figure")
		}
		if err != nil {
			return err
		}
	}
	if figErr != nil {
		return fmt.Errorf("the certificate above is complete, but its figure was not written: %w", figErr)
	}
	if !c.Certified {
		return errNotCertified
	}
	return nil
}
