package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/nnbound/nnbound/report"
)

// Decision is the result of a decision that prints itself for people:
// an Answer, a Top1Result or a RelationalResult.
type Decision interface {
	WriteText(w io.Writer) error
}

// Report says how to print a decision (Write): as text or as one JSON
// object, with the process's CPU time.
type Report struct {
	// JSON asks for the decision's JSON object rather than its text.
	JSON bool
	// CPU is the process's CPU time (all threads), printed after the
	// decision: a "cpu" line under the text's time line (the search's
	// wall time), "cpu_seconds" last in the JSON object.
	CPU time.Duration
	// HideTimes prints "- s" (text) and 0 (JSON) for the CPU time.
	HideTimes bool
}

// Write prints d as r says.
func (r Report) Write(w io.Writer, d Decision) error {
	if r.JSON {
		return r.writeJSON(w, d)
	}
	if err := d.WriteText(w); err != nil {
		return err
	}
	cpu := report.Seconds(r.CPU.Seconds())
	if r.HideTimes {
		cpu = "- s"
	}
	_, err := fmt.Fprintf(w, "%-9s %s (the process's CPU time, all threads)\n", "cpu", cpu)
	return err
}

// writeJSON writes the JSON object of d with the CPU time added last as
// "cpu_seconds".
func (r Report) writeJSON(w io.Writer, d Decision) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if len(b) < 2 || b[len(b)-1] != '}' {
		return fmt.Errorf("verify: the result is not a JSON object: %s", b)
	}
	cpu := r.CPU.Seconds()
	if r.HideTimes {
		cpu = 0
	}
	sep := ","
	if len(b) == 2 {
		sep = ""
	}
	b = append(b[:len(b)-1], fmt.Sprintf(`%s"cpu_seconds":%s}`, sep, strconv.FormatFloat(cpu, 'g', -1, 64))...)
	return report.WriteJSON(w, json.RawMessage(b))
}
