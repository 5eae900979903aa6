package certify

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nnbound/nnbound/sdp/cbf"
	"github.com/nnbound/nnbound/sdp/sdpa"
)

// ExportFormat is a file format for RootProblem.Write.
type ExportFormat int

// The export formats.
const (
	// SDPA is the sparse SDPA format (.dat-s), read by CSDP, SDPA, DSDP and
	// nnbound solve.
	SDPA ExportFormat = iota
	// CBF is the Conic Benchmark Format (.cbf, version 3), read by MOSEK.
	CBF
)

var exportFormatNames = [...]string{"sdpa", "cbf"}

// String returns the format's name: "sdpa" or "cbf".
func (f ExportFormat) String() string {
	if f < 0 || int(f) >= len(exportFormatNames) {
		return fmt.Sprintf("ExportFormat(%d)", int(f))
	}
	return exportFormatNames[f]
}

// ParseExportFormat returns the format named s: "sdpa" or "cbf".
func ParseExportFormat(s string) (ExportFormat, error) {
	for i, n := range exportFormatNames {
		if n == s {
			return ExportFormat(i), nil
		}
	}
	return 0, fmt.Errorf("certify: unknown export format %q (want sdpa or cbf)", s)
}

// ExportFormatOf returns the format the extension of the file name path
// says: SDPA for .dat-s and .sdpa, CBF for .cbf (in any case); ok is
// false for any other.
func ExportFormatOf(path string) (f ExportFormat, ok bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".dat-s", ".sdpa":
		return SDPA, true
	case ".cbf":
		return CBF, true
	}
	return 0, false
}

// Write writes p to w in format, headed by the comment lines of header
// (SDPA: each after a double quote; CBF: after "# ").
func (p *RootProblem) Write(w io.Writer, format ExportFormat, header []string) error {
	switch format {
	case CBF:
		return cbf.Write(w, p.Problem, header)
	case SDPA:
		for _, c := range header {
			if _, err := fmt.Fprintf(w, "\" %s\n", c); err != nil {
				return err
			}
		}
		return sdpa.Write(w, p.Problem)
	}
	return fmt.Errorf("certify: unknown export format %d: %w", int(format), ErrOptions)
}

// GammaNote says where each gamma is in a solver's solution of p written
// in format: "gamma = y[1], gamma_x1 = y[2], ..." in CSDP's y (SDPA's
// xVec), numbered from 1 as SDPA counts, or in MOSEK's scalar variables x,
// numbered from 0 as CBF counts.
func (p *RootProblem) GammaNote(format ExportFormat) string {
	vec, base := "y", 1
	if format == CBF {
		vec, base = "x", 0
	}
	parts := make([]string, len(p.GammaNames))
	for i, n := range p.GammaNames {
		parts[i] = fmt.Sprintf("%s = %s[%d]", n, vec, i+base)
	}
	return strings.Join(parts, ", ")
}

// LMIOrder returns the order of the largest PSD block of p.
func (p *RootProblem) LMIOrder() int {
	n := 0
	for _, b := range p.Blocks {
		if !b.Diagonal {
			n = max(n, b.Size)
		}
	}
	return n
}
