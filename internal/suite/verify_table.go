package suite

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/nnbound/nnbound/verify"
)

// writeVerifyTable prints the table of "bench verify" and its summary.
func writeVerifyTable(w io.Writer, o *VerifyOptions, insts []*verifyInstance, load [2]float64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "bench verify --suite %s --eps %g --timeout %v: %d instances, %d CPUs, load average %.1f at the start, %.1f at the end\n\n",
		o.Suite, o.Eps, o.Timeout, len(insts), runtime.NumCPU(), load[0], load[1])
	peers := o.Suite == "acasxu"
	head := []string{"instance", "verdict", "time s", "cpu s", "nodes", "bound", "found"}
	if peers {
		head = append(head, "NeuroDiff", "NeuroDiff s")
	}
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|" + strings.Repeat("---|", len(head)) + "\n")
	count := map[verify.Status]int{}
	total, cpu, peerTotal, peerProved := 0.0, 0.0, 0.0, 0
	for _, in := range insts {
		r := in.Result
		verdict := r.Status.String()
		if r.Reason != verify.NoReason {
			verdict += " (" + r.Reason.String() + ")"
		}
		count[r.Status]++
		total += r.Seconds
		cpu += in.CPU
		cells := []string{in.Name, verdict, fmt.Sprintf("%.2f", r.Seconds), fmt.Sprintf("%.2f", in.CPU), fmt.Sprint(r.Nodes), boundNumber(r.Bound), number(r.Worst.Measure)}
		if peers {
			cells = append(cells, in.Peer, fmt.Sprintf("%.2f", in.PeerS))
			peerTotal += in.PeerS
			if in.Peer == "proved" {
				peerProved++
			}
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	fmt.Fprintf(&b, "\nholds %d, violated %d, unknown %d of %d; total time %.1f s (CPU %.1f s)",
		count[verify.Holds], count[verify.Violated], count[verify.Unknown], len(insts), total, cpu)
	if peers {
		fmt.Fprintf(&b, "; NeuroDiff proved %d, total time %.1f s (timeouts counted)", peerProved, peerTotal)
	}
	b.WriteString(".\n")
	_, err := io.WriteString(w, b.String())
	return err
}
