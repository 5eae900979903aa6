package experiment

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/nnbound/nnbound/verify"
	"github.com/nnbound/nnbound/vnncomp/equiv"
	"github.com/nnbound/nnbound/vnnlib"
)

// ToleranceText describes t as the verdict's bound line prints it:
// "norm per-output; epsilon 0.01", the epsilons as one number or a list.
func ToleranceText(t verify.Tolerance) string {
	return fmt.Sprintf("norm %v; epsilon %s", t.Norm, epsText(t.Eps))
}

// PairText describes the output ranges of the VNN-LIB 2.0 property p,
// read from file, as the verdict's bound line prints them.
func PairText(p *vnnlib.Pair, file string) string {
	return fmt.Sprintf("the %d output ranges of %s, each about its centre", len(p.Outputs), file)
}

// epsText returns the epsilons as printed: one number, or the list.
func epsText(eps []float64) string {
	if len(eps) == 1 {
		return fmt.Sprint(eps[0])
	}
	return fmt.Sprint(eps)
}

// WriteVerdict prints the answer of an equivalence decision (equiv.Decide
// or DecideBox) for people, as aligned lines; what describes the
// tolerance (ToleranceText or PairText):
//
//	verdict   violated
//	bound     0.5        certified max of the difference over the box; norm inf; epsilon 0.001
//	found     0.5        counterexample, evaluated again at x = 1
//	          F(x) = 1, G(x) = 1.5
//	nodes     1 boxes bounded
//	time      0.001 s
func WriteVerdict(w io.Writer, a *equiv.Answer, what string) error {
	var b strings.Builder
	r := a.Result
	verdict := r.Status.String()
	if r.Reason != verify.NoReason {
		verdict += " (" + r.Reason.String() + ")"
	}
	fmt.Fprintf(&b, "verdict   %s\n", verdict)
	if math.IsInf(r.Bound, 0) || math.IsNaN(r.Bound) { // JSON's null
		fmt.Fprintf(&b, "bound     none       no finite bound proved over the box; %s\n", what)
	} else {
		fmt.Fprintf(&b, "bound     %-10.5g certified max of the difference over the box; %s\n", r.Bound, what)
	}
	if p := r.Worst; p != nil {
		what := "largest difference found"
		if r.Status == verify.Violated {
			what = "counterexample, evaluated again"
		}
		fmt.Fprintf(&b, "found     %-10.5g %s at x = %s\n", p.Measure, what, Vector(p.X))
		fmt.Fprintf(&b, "          F(x) = %s, G(x) = %s\n", Vector(p.F), Vector(p.G))
	}
	fmt.Fprintf(&b, "nodes     %d boxes bounded\n", r.Nodes)
	if a.Aligned != nil {
		fmt.Fprintf(&b, "neurons   %s\n", a.Aligned)
	}
	fmt.Fprintf(&b, "time      %.3g s\n", r.Seconds)
	_, err := io.WriteString(w, b.String())
	return err
}
