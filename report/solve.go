package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nnbound/nnbound/sdp"
)

// SolveRecord is the result of an SDP solve as "nnbound solve" prints
// it; its JSON form is the documented --json schema.
type SolveRecord struct {
	File                string  `json:"file"`
	Status              string  `json:"status"`
	PrimalObjective     Number  `json:"primal_objective"`
	DualObjective       Number  `json:"dual_objective"`
	RelGap              Number  `json:"rel_gap"`
	PrimalInfeasibility Number  `json:"primal_infeasibility"`
	DualInfeasibility   Number  `json:"dual_infeasibility"`
	Iterations          int     `json:"iterations"`
	Seconds             float64 `json:"seconds"`
	M                   int     `json:"m"`
	N                   int     `json:"n"`
	Blocks              []int   `json:"blocks"` // sizes, negative for diagonal blocks
}

// NewSolveRecord returns the output of solving p from path: r, with the
// wall time when the solver did not time itself.
func NewSolveRecord(path string, p *sdp.Problem, r *sdp.Result, wall time.Duration) *SolveRecord {
	t := r.Time
	if t <= 0 {
		t = wall
	}
	o := &SolveRecord{
		File:                path,
		Status:              r.Status.String(),
		PrimalObjective:     Number(r.PrimalObjective),
		DualObjective:       Number(r.DualObjective),
		RelGap:              Number(r.RelGap),
		PrimalInfeasibility: Number(r.PrimalInfeasibility),
		DualInfeasibility:   Number(r.DualInfeasibility),
		Iterations:          r.Iterations,
		Seconds:             math.Round(t.Seconds()*1e6) / 1e6,
		M:                   p.NumVars(),
	}
	for _, b := range p.Blocks {
		o.N += b.Size
		if b.Diagonal {
			o.Blocks = append(o.Blocks, -b.Size)
		} else {
			o.Blocks = append(o.Blocks, b.Size)
		}
	}
	return o
}

// WriteText prints o as aligned "name  value" lines.
func (o *SolveRecord) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	blocks := make([]string, len(o.Blocks))
	for i, b := range o.Blocks {
		blocks[i] = strconv.Itoa(b)
	}
	fmt.Fprintf(tw, "problem\t%s\n", o.File)
	fmt.Fprintf(tw, "size\tm = %d, n = %d, blocks %s\n", o.M, o.N, strings.Join(blocks, " "))
	fmt.Fprintf(tw, "status\t%s\n", o.Status)
	fmt.Fprintf(tw, "primal objective\t%.10e\n", float64(o.PrimalObjective))
	fmt.Fprintf(tw, "dual objective\t%.10e\n", float64(o.DualObjective))
	fmt.Fprintf(tw, "relative gap\t%.2e\n", float64(o.RelGap))
	fmt.Fprintf(tw, "primal infeasibility\t%.2e\n", float64(o.PrimalInfeasibility))
	fmt.Fprintf(tw, "dual infeasibility\t%.2e\n", float64(o.DualInfeasibility))
	fmt.Fprintf(tw, "iterations\t%d\n", o.Iterations)
	fmt.Fprintf(tw, "seconds\t%.3f\n", o.Seconds)
	return tw.Flush()
}
