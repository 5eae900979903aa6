package experiment

import (
	"fmt"
	"io"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/report"
)

// CertReport says how to report a certificate (Write): as text or JSON,
// with or without a figure.
type CertReport struct {
	// JSON asks for the JSON record (NewRecord) rather than the text
	// (WriteCertificate).
	JSON bool
	// Compression is the report of the compression certified (quantise,
	// prune), put in the JSON record; nil for none.
	Compression *CompressionRecord
	// Plot is the file of the figure, "" for none. Draw draws it; it is
	// called only when Plot is set and the certificate is certified.
	Plot string
	Draw func() (*report.Figure, error)
	// HideTimes prints "-" (text) and 0 (JSON) for the run times.
	HideTimes bool
}

// Write draws c's figure into r.Plot (when set and c is certified), then
// prints c as text, with a "figure" line, or as JSON, with the figure's
// file in "plot". A figure that cannot be drawn or written is an error
// returned after the certificate is printed, so that the certificate is
// never lost. Write says nothing of whether c is certified: that is c's.
func (r CertReport) Write(w io.Writer, c *certify.Certificate) error {
	written := ""
	var figErr error
	if r.Plot != "" && c.Certified() {
		fig, err := r.Draw()
		if err == nil {
			err = fig.Save(r.Plot)
		}
		if figErr = err; err == nil {
			written = r.Plot
		}
	}
	if r.JSON {
		j := NewRecord(c)
		if r.HideTimes {
			j.Seconds, j.SDP.Seconds = 0, 0
		}
		j.Plot, j.Compression = written, r.Compression
		if err := report.WriteJSON(w, j); err != nil {
			return err
		}
	} else {
		if err := WriteCertificate(w, c, r.HideTimes); err != nil {
			return err
		}
		var err error
		switch {
		case written != "":
			_, err = fmt.Fprintf(w, "%-15s %s (%s)\n", "figure", written, FigureNote(c.Inputs))
		case r.Plot != "" && figErr == nil:
			_, err = fmt.Fprintf(w, "%-15s none (there is no bound to draw)\n", "figure")
		}
		if err != nil {
			return err
		}
	}
	if figErr != nil {
		return fmt.Errorf("the certificate above is complete, but its figure was not written: %w", figErr)
	}
	return nil
}
