package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/prune"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
)

// loadGraphPair reads the two models named by args as graphs and checks
// that they take the same inputs and give the same outputs.
func (f *modelFlags) loadGraphPair(args []string) ([2]*model, error) {
	var ms [2]*model
	for i, path := range args {
		m, err := f.loadGraph(path)
		if err != nil {
			return ms, err
		}
		ms[i] = m
	}
	return ms, nn.CheckComparable(args[0], ms[0].Graph, args[1], ms[1].Graph)
}

// runCompareGraph certifies two models of which one at least is a graph
// that is not a chain (certify.BoundGraph: bound propagation through the
// graphs, no SDP, no neuron alignment).
func runCompareGraph(cmd *cobra.Command, f *compareFlags, opts certjob.Job, ms [2]*model) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := f.selectOutput(&opts, ms[0].Graph.OutputSize()); err != nil {
		return err
	}
	box, err := f.input.boxNoted(ms[0].Graph.InputSize(), stderr)
	if err != nil {
		return err
	}
	if f.plot != "" {
		return usagef("--plot is not supported for graph networks yet")
	}
	c, err := opts.BoundGraph(cmd.Context(), ms[0].Graph, ms[1].Graph, box, stderr)
	if err != nil {
		return err
	}
	return emitCertificate(cmd.Context(), stdout, c, f.json, nil, "", nil)
}

// compressGraph compresses a model that is a graph, not a chain (or a
// chain under --arith float32), saves the copy, prints the compression
// report (text, or JSON under --json) and, with --certify, certifies it
// by bound propagation through the graphs (certify.BoundGraph).
func compressGraph(cmd *cobra.Command, cc *compressCert, m *model, comp compression, save string) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if comp.ApplyGraph == nil && m.Net == nil {
		return fmt.Errorf("%s is a computation graph, not a chain of layers: this compression (%s) is made of chains only so far "+
			"(graphs take quantise --frac-bits and --float16, prune --sparsity and --neurons)", m.Info.Path, comp.What)
	}
	if cc.plot != "" {
		return usagef("--plot is not supported for graph networks yet")
	}
	if m.Net == nil && save != "" && modelfile.FormatOf(save) != modelfile.ONNX {
		return usagef("--save %q: a graph is saved as .onnx", save)
	}
	opts, err := cc.check()
	if err != nil {
		return err
	}
	var box spec.Box
	if cc.certify { // before the copy is saved
		if box, err = cc.input.boxNoted(m.Graph.InputSize(), stderr); err != nil {
			return err
		}
	}
	copyGraph, j, err := graphCopy(m, comp, save, stderr)
	if err != nil {
		return err
	}
	switch {
	case cc.json && !cc.certify:
		return report.WriteJSON(stdout, j)
	case !cc.json:
		desc := m.heading()
		if m.Net != nil {
			desc = m.describe()
		}
		if err := j.WriteText(stdout, desc); err != nil {
			return err
		}
	}
	if !cc.certify {
		return nil
	}
	if err := copyWidth(&opts, copyGraph, "the copy", stderr); err != nil {
		return err
	}
	c, err := opts.BoundGraph(cmd.Context(), m.Graph, copyGraph, box, stderr)
	if err != nil {
		return err
	}
	if !cc.json {
		fmt.Fprintln(stdout)
	}
	return emitCertificate(cmd.Context(), stdout, c, cc.json, j, "", nil)
}

// graphCopy compresses m, saves the copy to save ("" saves nothing) and
// returns it as a graph with its report: a chain by its own compression
// (of its core's parameters, compressAndSave), a graph by
// experiment.Compression.Graph, written as ONNX.
func graphCopy(m *model, comp compression, save string, stderr io.Writer) (*nn.Graph, *experiment.CompressionRecord, error) {
	if m.Net != nil {
		_, c, err := compressAndSave(m, save, comp, stderr, func(*model) error { return nil })
		if err != nil {
			return nil, nil, err
		}
		return c.Net.Graph(), comp.Record(m.Info, c, save), nil
	}
	copyGraph, j, err := comp.Graph(m.Info, m.Graph, save)
	if errors.Is(err, prune.ErrOptions) {
		return nil, nil, usageError{err} // more neurons than the graph has
	}
	return copyGraph, j, err
}
