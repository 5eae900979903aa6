package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/atomicfile"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
	"github.com/nnbound/nnbound/vnnlib"
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
	a, b := ms[0].Graph, ms[1].Graph
	if a.InputSize() != b.InputSize() || a.OutputSize() != b.OutputSize() {
		return ms, fmt.Errorf("%s has %d inputs and %d outputs but %s has %d and %d: %w",
			args[0], a.InputSize(), a.OutputSize(), args[1], b.InputSize(), b.OutputSize(), nn.ErrNotComparable)
	}
	return ms, nil
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
	return emitCertificate(cmd.Context(), stdout, c, box, opts, f.json, nil, "", nil)
}

// decideGraphs decides the tolerance of verify for two models of which
// one at least is a graph that is not a chain (verify.DecideGraph; no
// neuron alignment), and returns the answer with the description of the
// question.
func (f *verifyFlags) decideGraphs(ctx context.Context, ms [2]*model, prop *vnnlib.Property, tol verify.Tolerance,
	opts *verify.Options, stderr io.Writer) (*verify.Answer, string, error) {
	if prop != nil && prop.Pair != nil {
		return nil, "", usagef("two-network VNN-LIB properties of graph networks are not decided yet: give --epsilon and the box")
	}
	n := ms[0].Graph.InputSize()
	if err := tol.Validate(ms[0].Graph.OutputSize()); err != nil {
		return nil, "", usageError{err}
	}
	var box spec.Box
	var err error
	if prop != nil {
		box, err = f.input.specBoxNoted(prop.Spec, n, stderr)
	} else {
		box, err = f.input.boxNoted(n, stderr)
	}
	if err != nil {
		return nil, "", err
	}
	r, err := verify.DecideGraph(ctx, ms[0].Graph, ms[1].Graph, spec.Inputs{Box: box}, tol, opts)
	if err != nil {
		return nil, "", err
	}
	return &verify.Answer{Result: r}, tol.Text(), nil
}

// compressGraph compresses a model that is a graph, not a chain (or a
// chain under --arith float32), saves the copy as ONNX (onnx.WriteGraph)
// and, with --certify, certifies it (certify.BoundGraph).
func compressGraph(cmd *cobra.Command, cc *compressCert, m *model, comp compression, save string) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if comp.applyGraph == nil && m.Net != nil {
		return usagef("--arith float32 certifies through the graph path, where %s is not supported yet", comp.what)
	}
	if comp.applyGraph == nil {
		return fmt.Errorf("%s is a computation graph, not a chain of layers: %s of graphs is not supported yet "+
			"(quantise --frac-bits and --float16 are)", m.Info.Path, comp.what)
	}
	if cc.plot != "" {
		return usagef("--plot is not supported for graph networks yet")
	}
	if save != "" && modelfile.FormatOf(save) != modelfile.ONNX {
		return usagef("--save %q: a graph is saved as .onnx", save)
	}
	opts, err := cc.check()
	if err != nil {
		return err
	}
	copyGraph, err := comp.applyGraph(m.Graph)
	if err != nil {
		return err
	}
	if save != "" {
		if err := atomicfile.Write(save, func(w io.Writer) error { return onnx.WriteGraph(w, copyGraph) }); err != nil {
			return err
		}
	}
	if !cc.json {
		fmt.Fprintf(stdout, "model     %s (graph of %d nodes, %d parameters)\ncopy      %s", m.Info.Path, len(m.Graph.Nodes),
			m.Graph.NumParams(), comp.what)
		if save != "" {
			fmt.Fprintf(stdout, ", saved to %s", save)
		}
		fmt.Fprintln(stdout)
	}
	if !cc.certify {
		return nil
	}
	box, err := cc.input.boxNoted(m.Graph.InputSize(), stderr)
	if err != nil {
		return err
	}
	c, err := opts.BoundGraph(cmd.Context(), m.Graph, copyGraph, box, stderr)
	if err != nil {
		return err
	}
	if !cc.json {
		fmt.Fprintln(stdout)
	}
	return emitCertificate(cmd.Context(), stdout, c, box, opts, cc.json, nil, "", nil)
}
