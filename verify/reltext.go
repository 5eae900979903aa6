package verify

import (
	"fmt"
	"io"
	"strings"

	"github.com/nnbound/nnbound/internal/numtext"
)

// WriteText prints the relational result for people, as aligned lines:
//
//	verdict   violated (the pair below satisfies the property's unsafe condition)
//	found     x_f = 0.6, ... (evaluated again)
//	          x_g = 0.61, ...
//	          F(x_f) = ..., G(x_g) = ...
//	nodes     12 boxes bounded
//	time      0.001 s
func (r *RelationalResult) WriteText(w io.Writer) error {
	var b strings.Builder
	if p := r.Counterexample; p != nil {
		fmt.Fprintf(&b, "found     x_f = %s (evaluated again)\n", numtext.Vector(p.XF))
		if p.XG != nil {
			fmt.Fprintf(&b, "          x_g = %s\n", numtext.Vector(p.XG))
			fmt.Fprintf(&b, "          F(x_f) = %s, G(x_g) = %s\n", numtext.Vector(p.F), numtext.Vector(p.G))
		} else {
			fmt.Fprintf(&b, "          F(x_f) = %s\n", numtext.Vector(p.F))
		}
	}
	v := verdict(r.Status, r.Reason, fmt.Sprintf("%d boxes open", r.Open),
		"no pair of the input set satisfies the unsafe condition", "the pair below satisfies the unsafe condition")
	return writeDecision(w, v, b.String(), r.Nodes, "", r.Seconds)
}
