package experiment

import (
	"fmt"
	"io"
	"strings"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/numtext"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// WriteCertificate prints c for people: one aligned line per field, the
// bound and the observed error first.
//
//	certified       yes
//	bound           0.2931     max ||f1(x1) - f2(x2)|| over the input set, proved
//	observed error  0.2719     largest error found, at x1 = 0.749 (x2 = 0.5)
//	...
//
// With hideTimes the solve time is printed as "-" (for golden files).
func WriteCertificate(w io.Writer, c *certify.Certificate, hideTimes bool) error {
	var b strings.Builder
	line := func(key, value, note string) {
		s := fmt.Sprintf("%-15s %s", key, value)
		if note != "" {
			s = fmt.Sprintf("%-15s %-12s %s", key, value+" ", note)
		}
		b.WriteString(strings.TrimRight(s, " ") + "\n")
	}
	if c.Certified() {
		line("certified", "yes", "")
		line("bound", report.Up(c.Bound, 5), "certified max of "+c.Quantity.String()+" over the input set")
	} else {
		line("certified", "no", "("+c.Status.String()+": "+c.Reason+")")
		line("bound", "none", "no bound is claimed")
	}
	where := ""
	if len(c.X1) > 0 {
		where = "found at x1 = " + Vector(c.X1)
		if c.Inputs.Pairing != spec.SameInput {
			where += ", x2 = " + Vector(c.X2)
		}
	}
	line("observed error", report.Float(c.ObservedError, 5), where)
	if c.Certified() {
		line("ratio", report.Ratio(c.Ratio()), "bound / observed error (1 is tight)")
	}
	if c.Stopped != certify.StopNone {
		line("stopped", c.Stopped.String(), "("+stopNote(c)+")")
	}
	if c.Certified() && byOutput(c) {
		line("outputs", floats(c.Outputs), "certified max of |f1_k(x1) - f2_k(x2)| for each output k")
	}
	if c.Certified() && c.Source != c.Method {
		why := "tighter than the SDP there"
		switch {
		case c.Fallbacks > 0:
			why = "where the SDP failed, or tighter than it"
		case c.SDPSkipped.Skipped():
			why = "SDP not run: " + c.SDPSkipped.Why.String()
		}
		where := "over the input set"
		if len(c.Pieces) > 1 {
			where = "on the input piece with the largest bound"
		}
		line("bound from", c.Source.String(), "(bound propagation "+where+": "+why+")")
	}
	// A chain's note tells of its SDPs (none without a solve); a graph's,
	// of a refinement cut short (the bound that stands).
	if c.Certified() && c.Note != "" && (c.SDP.Solves > 0 || throughGraphs(c)) {
		line("note", c.Note, "")
	}
	if c.IsTrivial() {
		line("note", "the bound is the trivial "+report.Up(c.Trivial, 4)+" that the ranges of the output activations give alone", "")
	}
	line("input set", c.Inputs.Box.Describe(), PairingNote(c.Inputs))
	line("arithmetic", c.Arith.Describe(), "")
	switch {
	case c.Certified() && !c.RootCertified():
		line("gammas", "none", "(the SDP over the whole input set failed; the bound comes from the pieces)")
	case c.Certified() && c.Inputs.Pairing == spec.SameInput:
		line("gammas", fmt.Sprintf("gamma %s, gamma_x1 %s, gamma_x2 %s",
			report.Up(c.Gamma, 4), report.Up(c.GammaX1, 4), report.Up(c.GammaX2, 4)), "")
		line("", "in "+SquareName(c)+" <= gamma + gamma_x1 ||x1||^2 + gamma_x2 ||x2||^2 (x2 = x1)", "")
		rootNote(line, c)
	case c.Certified():
		line("gammas", fmt.Sprintf("gamma %s, gamma_x1 %s, gamma_x2 %s, gamma_x %s",
			report.Up(c.Gamma, 4), report.Up(c.GammaX1, 4), report.Up(c.GammaX2, 4), report.Up(c.GammaX, 4)), "")
		line("", "in "+SquareName(c)+" <= gamma + gamma_x1 ||x1||^2 + gamma_x2 ||x2||^2 + gamma_x ||x1 - x2||^2", "")
		rootNote(line, c)
	}
	pieces := ""
	if len(c.Pieces) > 1 {
		pieces = fmt.Sprintf(", input split into %d pieces", len(c.Pieces))
	}
	if c.TimeBudgetHit {
		pieces += ", stopped by the time budget after " + piecesDone(c) + " (--timeout; 0 for none)"
	}
	if c.SDP.Solves == 0 || (c.SDP.Size == 0 && c.SDPSkipped.Skipped()) { // pieces bounded, no SDP built
		why := ""
		switch {
		case c.Method == certify.MethodPropagation:
			why = "(--method interval: bound propagation alone" + pieces + ")"
		case c.SDPSkipped.Skipped():
			why = "(" + c.SDPSkipped.String() + pieces + ")"
		case c.Source == certify.MethodPropagation:
			why = "(bound propagation alone" + pieces + ")"
		}
		line("sdp", "none", why)
	} else if c.SDP.Size == 0 { // the time budget ended while the root's SDP was built
		line("sdp", "not built", fmt.Sprintf("(QC set %s%s)", c.QC, pieces))
	} else {
		line("sdp", fmt.Sprintf("LMI of order %d, %d variables, QC set %s", c.SDP.Size, c.SDP.Variables, c.QC), "")
		when := report.Seconds(c.SDP.Time.Seconds())
		if hideTimes {
			when = "- s"
		}
		if c.SDP.Solves > 1 {
			when += " summed over the solves, which may overlap"
		}
		line("", fmt.Sprintf("%d solve(s), %d iterations, %s%s", c.SDP.Solves, c.SDP.Iterations, when, pieces), "")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PairingNote says how x2 relates to x1 in the input set in: "x2 = x1", ...
func PairingNote(in spec.Inputs) string {
	switch in.Pairing {
	case spec.SameInput:
		return "x2 = x1"
	case spec.QuantisedInput:
		return fmt.Sprintf("x2 = q(x1), the input quantised to %d fractional bits (%s)", in.Quant.FracBits, in.Quant.Rounding)
	}
	return "x1 and x2 independent"
}

// Vector prints a short vector: "0.749" or "(0.1, -0.2, 0.3)", eliding
// the middle of long ones.
func Vector(v []float64) string { return numtext.Vector(v) }

// floats prints a vector of bounds in full: "0.1234, 5.678, ...".
func floats(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = report.Up(x, 4)
	}
	return strings.Join(parts, ", ")
}

// What a certificate bounds depends on its options: the 2-norm of the
// output difference d = f1(x1) - f2(x2) (the paper's), its inf-norm
// max_k |d_k| (--norm inf), or one output's |d_K| (--output K, a one-hot
// Options.C; any other C gives |c^T d|). certify.Certificate.Quantity
// names it; SquareName and AxisName adapt the name to the figures and the
// gammas (certify.Certificate.Measure evaluates it).

// SquareName returns the left-hand side of the gammas' inequality of c:
// the square of what they bound. For the inf-norm over several outputs,
// the gammas are those of the output with the largest bound.
func SquareName(c *certify.Certificate) string {
	if byOutput(c) {
		k := c.WorstOutput()
		return fmt.Sprintf("|f1_%d - f2_%d|^2", k, k)
	}
	return AxisName(c) + "^2"
}

// rootNote adds, under the gammas of c, that they hold on the whole input
// set with a larger maximum than the bound, which the split pieces give.
func rootNote(line func(key, value, note string), c *certify.Certificate) {
	if len(c.Pieces) > 1 && c.RootBound > c.Bound {
		line("", "(the whole input set's inequality, at most "+report.Up(c.RootBound, 4)+" there: the split pieces give the bound above)", "")
	}
}

// throughGraphs reports whether c comes from bound propagation through
// the graphs (certify.BoundGraph), where no SDP runs.
func throughGraphs(c *certify.Certificate) bool {
	return c.SDPSkipped.Why == certify.SkipGraph || c.SDPSkipped.Why == certify.SkipGraphFloat32
}

// byOutput reports whether c bounds the inf-norm of several outputs
// with a bound per output (Certificate.Outputs).
func byOutput(c *certify.Certificate) bool {
	return c.Quantity.C == nil && c.Quantity.Norm == spec.NormInf && len(c.Outputs) > 1
}

// piecesDone says how many pieces the refinement of c went through: the
// pieces kept, or, for the inf-norm certified output by output (which
// keeps none), the pieces bounded over all outputs (Certificate.Bounded).
func piecesDone(c *certify.Certificate) string {
	if byOutput(c) && len(c.Pieces) == 0 {
		return fmt.Sprintf("%d piece(s) bounded over %d outputs", max(c.Bounded, 1), len(c.Outputs))
	}
	return fmt.Sprintf("%d piece(s)", max(len(c.Pieces), 1))
}

// stopNote says what ended the refinement of c and after how many
// pieces, as the text's stopped line (in parentheses) and the JSON's
// stop_note print it; "" when c was not refined (StopNone).
func stopNote(c *certify.Certificate) string {
	n := "after " + piecesDone(c)
	switch c.Stopped {
	case certify.StopNone:
		return ""
	case certify.StopTarget:
		return n + ": bound / observed error within --target-ratio"
	case certify.StopNoGain:
		return n + ": doubling the pieces no longer shrinks the gap to the observed error enough"
	case certify.StopCap:
		// The cap counts every piece bounded, a split piece as well as
		// its halves (Certificate.Bounded): say how many.
		if byOutput(c) && len(c.Pieces) == 0 {
			return fmt.Sprintf("%d piece(s) bounded over %d outputs: --max-pieces caps each output's", max(c.Bounded, 1), len(c.Outputs))
		}
		return fmt.Sprintf("%d piece(s) bounded, %d kept: --max-pieces", max(c.Bounded, 1), max(len(c.Pieces), 1))
	case certify.StopBudget:
		return n + ": --timeout; 0 for none"
	case certify.StopEnough:
		return n + ": the bound is at most the target asked for"
	case certify.StopCostly:
		return n + ": the pieces' work budget is spent; --max-pieces N splits on"
	}
	return n
}
