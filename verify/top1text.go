package verify

import (
	"fmt"
	"io"
	"strings"

	"github.com/nnbound/nnbound/internal/numtext"
)

// WriteText prints the top-1 result for people, as aligned lines:
//
//	verdict   violated
//	class     3          f's class at the centre of the box
//	found     f picks 3, g picks 5 at x = 0.5, ... (evaluated again)
//	          F(x) = ..., G(x) = ...
//	nodes     1 boxes bounded
//	time      0.001 s
func (r *Top1Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "class     %-10d f's class at the centre of the box\n", r.Class)
	if p := r.Counterexample; p != nil {
		fmt.Fprintf(&b, "found     f picks %d, g picks %d at x = %s (evaluated again)\n", p.ClassF, p.ClassG, numtext.Vector(p.X))
		fmt.Fprintf(&b, "          F(x) = %s, G(x) = %s\n", numtext.Vector(p.F), numtext.Vector(p.G))
	}
	v := verdict(r.Status, r.Reason, fmt.Sprintf("%.3g of the box unsettled", r.Open),
		"f and g pick the same class at every input of the box", "f and g pick different classes at the input below")
	return writeDecision(w, v, b.String(), r.Nodes, "", r.Seconds)
}
