package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/quantise"
)

// runSweepGraph is runSweep for a model that is a graph, not a chain (or
// a chain under --arith float32): each copy made by quantise.Graph after
// prune's graph pruning (a chain's copies as runSweep makes them), and
// certified by certify.BoundGraph with the sweep's certification flags,
// as quantise --certify does; the same table, JSON and figure as for
// chains (finish).
func runSweepGraph(cmd *cobra.Command, path string, f *sweepFlags, p *sweepPlan, m *model) error {
	switch {
	case m.Net != nil: // a chain under --arith float32: its own copies
	case p.scheme.Int8:
		return usagef("--scheme int8: int8 copies are made of chains of layers, and %s is a graph (sweep --frac-bits makes graph copies)", path)
	case p.scheme.ActFracBits != 0:
		return usagef("--act-frac-bits: activation rounding is made in chains of layers, and %s is a graph", path)
	case f.saveBest != "" && modelfile.FormatOf(f.saveBest) != modelfile.ONNX: // a graph copy
		return usagef("--save-best %q: a graph is saved as .onnx", f.saveBest)
	}
	box, err := f.input.boxNoted(m.Graph.InputSize(), cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	copyOf := p.scheme.GraphCopies(m.Info, m.Graph, m.Net, box)
	s := experiment.WidthSweep{Widths: p.widths, Levels: p.levels, Rounding: p.rounding, Opts: p.opts, Jobs: p.jobs}
	rows, err := s.RunGraph(cmd.Context(), m.Graph, box, copyOf, cmd.ErrOrStderr())
	return f.finish(cmd, path, p, sweepRun{box: box, rows: rows, err: err, network: m.heading(),
		saveBest: func(j *experiment.SweepResult) error {
			if m.Net != nil {
				return j.SaveBest(f.saveBest, p.rounding, p.saveCopy(m, box, f.saveBest, cmd.ErrOrStderr()))
			}
			return j.SaveBest(f.saveBest, p.rounding, func(q quantise.Format) error {
				g, err := copyOf(p.levels[0], q)
				if err != nil {
					return err
				}
				return modelfile.SaveGraph(f.saveBest, g)
			})
		}})
}
