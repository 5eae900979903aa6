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
	verdict := r.Status.String()
	if r.Reason != NoReason {
		verdict += " (" + r.Reason.String() + ")"
	}
	fmt.Fprintf(&b, "verdict   %s\n", verdict)
	if math.IsInf(r.Bound, 0) || math.IsNaN(r.Bound) { // JSON's null
		fmt.Fprintf(&b, "bound     none       no finite bound proved over the box; %s\n", r.Question())
	} else {
		fmt.Fprintf(&b, "bound     %-10.5g certified max of the difference over the box; %s\n", r.Bound, r.Question())
	}
	if p := r.Worst; p != nil {
		what := "largest difference found"
		if r.Status == Violated {
			what = "counterexample, evaluated again"
		}
		fmt.Fprintf(&b, "found     %-10.5g %s at x = %s\n", p.Measure, what, numtext.Vector(p.X))
		fmt.Fprintf(&b, "          F(x) = %s, G(x) = %s\n", numtext.Vector(p.F), numtext.Vector(p.G))
	}
	fmt.Fprintf(&b, "nodes     %d boxes bounded\n", r.Nodes)
	if a.Aligned != nil {
		fmt.Fprintf(&b, "neurons   %s\n", a.Aligned)
	}
	fmt.Fprintf(&b, "time      %.3g s\n", r.Seconds)
	_, err := io.WriteString(w, b.String())
	return err
}
