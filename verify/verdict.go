package verify

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/nnbound/nnbound/internal/numtext"
)

// Question describes the question of r as the verdict's bound line prints
// it: the tolerance (spec.Tolerance.String), or the output ranges of the
// property decided.
func (r *Result) Question() string {
	if p := r.Property; p != nil {
		src := p.Source
		if src == "" {
			src = "the property"
		}
		return fmt.Sprintf("the %d output ranges of %s, each about its centre", len(p.Outputs), src)
	}
	return r.Tolerance.String()
}

// WriteText prints the answer for people, as aligned lines:
//
//	verdict   violated
//	bound     0.5        certified max of the difference over the box; norm inf; epsilon 0.001
//	found     0.5        counterexample, evaluated again at x = 1
//	          F(x) = 1, G(x) = 1.5
//	nodes     1 boxes bounded
//	time      0.001 s
func (a *Answer) WriteText(w io.Writer) error {
	var b strings.Builder
	r := a.Result
	if math.IsInf(r.Bound, 0) || math.IsNaN(r.Bound) { // JSON's null
		fmt.Fprintf(&b, "bound     none       no finite bound proved over the box; %s\n", r.Question())
	} else {
		fmt.Fprintf(&b, "bound     %-10s certified max of the difference over the box; %s\n", numtext.Up(r.Bound, 5), r.Question())
	}
	if p := r.Worst; p != nil {
		what := "largest difference found"
		if r.Status == Violated {
			what = "counterexample, evaluated again"
		}
		fmt.Fprintf(&b, "found     %-10.5g %s at x = %s\n", p.Measure, what, numtext.Vector(p.X))
		fmt.Fprintf(&b, "          F(x) = %s, G(x) = %s\n", numtext.Vector(p.F), numtext.Vector(p.G))
	}
	var more string
	if a.Aligned != nil {
		more = fmt.Sprintf("neurons   %s\n", a.Aligned)
	}
	return writeDecision(w, verdict(r.Status, r.Reason, "", "", ""), b.String(), r.Nodes, more, r.Seconds)
}

// verdict returns the verdict line of a decision: its status, with why
// the search stopped when it did early (reason, then open, what is left
// open, unless ""), else what holds or violated means for the question
// (nothing when "").
func verdict(s Status, reason Reason, open, holds, violated string) string {
	v := s.String()
	switch {
	case reason != NoReason && open != "":
		v += " (" + reason.String() + "; " + open + ")"
	case reason != NoReason:
		v += " (" + reason.String() + ")"
	case s == Holds && holds != "":
		v += " (" + holds + ")"
	case s == Violated && violated != "":
		v += " (" + violated + ")"
	}
	return v
}

// writeDecision writes the aligned lines of a decision for people, the
// one layout of every result's WriteText:
//
//	verdict   the verdict line
//	...       body, the lines of the result (labels padded to 10 columns)
//	nodes     N boxes bounded
//	...       more, lines after the nodes
//	time      T s
func writeDecision(w io.Writer, verdict, body string, nodes int, more string, seconds float64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict   %s\n", verdict)
	b.WriteString(body)
	fmt.Fprintf(&b, "nodes     %d boxes bounded\n", nodes)
	b.WriteString(more)
	fmt.Fprintf(&b, "time      %.3g s\n", seconds)
	_, err := io.WriteString(w, b.String())
	return err
}
