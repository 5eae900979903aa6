package experiment

import (
	"fmt"
	"io"
	"time"

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
	// Interrupted reports that a signal stopped the work: c is the
	// certificate of the work done before it.
	Interrupted bool
	// CPU is the process's CPU time (all threads; 0: not measured),
	// printed beside c's wall time.
	CPU time.Duration
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
		j.Interrupted, j.CPUSeconds = r.Interrupted, r.CPU.Seconds()
		if r.HideTimes {
			j.Seconds, j.SDP.Seconds, j.CPUSeconds = 0, 0, 0
		}
		j.Plot, j.Compression = written, r.Compression
		if err := report.WriteJSON(w, j); err != nil {
			return err
		}
	} else {
		if err := WriteCertificate(w, c, r.HideTimes); err != nil {
			return err
		}
		if _, err := io.WriteString(w, r.runLines(c)); err != nil {
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

// runLines returns the text lines of how the run went: its wall and CPU
// time and, when a signal stopped it, that mark.
func (r CertReport) runLines(c *certify.Certificate) string {
	wall, cpu := report.Seconds(c.Time.Seconds()), report.Seconds(r.CPU.Seconds())
	if r.HideTimes {
		wall, cpu = "- s", "- s"
	}
	s := fmt.Sprintf("%-15s %s wall", "time", wall)
	if r.CPU > 0 || r.HideTimes {
		s += ", " + cpu + " CPU (the process's, all threads)"
	}
	s += "\n"
	if r.Interrupted {
		what := "the bound holds, but the work stopped early: it may be looser"
		if !c.Certified() {
			what = "no bound was certified before it"
		}
		s += fmt.Sprintf("%-15s %s\n", "interrupted", "by a signal: "+what)
	}
	return s
}
