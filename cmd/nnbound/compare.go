package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/verify"
)

// compareFlags are the flags of nnbound compare.
type compareFlags struct {
	model  modelFlags
	input  inputFlags
	cert   certFlags
	pair   pairFlags
	json   bool
	plot   string
	method string
	// methodSet says --method was given.
	methodSet bool
	norm      string
	output    int
	// noAlign keeps g's hidden neurons where they are.
	noAlign bool
	arith   arithFlag
}

// options checks the flags that do not depend on the models and returns
// the certification options, with the solver log on stderr under -v.
func (f *compareFlags) options(stderr io.Writer) (certjob.Job, error) {
	if err := f.input.check(); err != nil {
		return certjob.Job{}, err
	}
	o, err := f.cert.options(stderr)
	if err != nil {
		return o, err
	}
	if err := f.pair.apply(&o); err != nil {
		return o, err
	}
	if err := f.arith.apply(&o); err != nil {
		return o, err
	}
	if o.Method, err = certify.ParseMethod(f.method); err != nil {
		return o, usagef("--method %q: want sdp or interval", f.method)
	}
	// An explicit --method sdp asks for the SDP whatever its size: the
	// time budget stops it, with the best bound certified by then.
	o.Refine.SolveLarge = o.Method == certify.MethodSDP && f.methodSet
	if o.Norm, err = spec.ParseNorm(f.norm); err != nil || o.Norm == spec.PerOutput {
		return o, usagef("--norm %q: want 2 or inf", f.norm)
	}
	if f.output < -1 {
		return o, usagef("--output %d: want an output index >= 0", f.output)
	}
	if f.plot != "" {
		if err := checkPlot(f.plot); err != nil {
			return o, err
		}
	}
	return o, nil
}

// selectOutput sets o.C to pick --output K of nOut outputs.
func (f *compareFlags) selectOutput(o *certjob.Job, nOut int) error {
	if f.output < 0 {
		return nil
	}
	if err := checkOutput(f.output, nOut); err != nil {
		return err
	}
	o.C = spec.OutputC(nOut, f.output)
	return nil
}

func newCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Certify the output difference of two networks",
		Long: `Certify an upper bound on ||A(x1) - B(x2)||_2 for every input pair of the
input set, by the SDP of Li, Drummond and Duncan (L4DC 2021), checked
independently of the solver, next to the largest error found at actual
inputs. By default A and B get the same input (--pairing same, as on every
command); --pairing independent lets x1 and x2 range over the box apart
(the paper's similarity problem: A and B are any two networks), and
--pairing quantised feeds B the input quantised to B's width (the fewest
fractional bits holding its weights, or --input-frac-bits). --norm inf
bounds the largest output difference max_k |A_k(x1) - B_k(x2)| instead,
and --output K the difference of output K alone. --arith float32 makes
the bound also cover float32 evaluation of both networks (as onnxruntime
and torch run them); it is certified by bound propagation through the
graphs, without the SDP, for chains of layers too. A computation graph
that is not a chain (residual Add, Concat, MaxPool, ...) is certified the
same way: the SDP is built for chains of layers.

Exit status: 0 certified, 1 not certified (or an error), 2 usage error,
130 stopped by a signal (SIGINT, SIGTERM) after printing what was finished.`,
		Example: `  nnbound compare a.onnx b.onnx
  nnbound compare model.onnx model-q8.onnx --pairing quantised --input-frac-bits 8
  nnbound compare a.onnx b.onnx --norm inf --lo 0,0 --hi 1,1 --json`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.methodSet = cmd.Flags().Changed("method")
			return runCompare(cmd, args, &f)
		},
	}
	fs := cmd.Flags()
	f.model.register(fs)
	f.input.register(fs)
	f.cert.register(fs)
	f.pair.register(cmd, f.cert.opts)
	f.arith.register(fs)
	fs.BoolVar(&f.json, "json", false, "print the certificate as one JSON object")
	fs.BoolVar(&f.noAlign, "no-align", false, "do not match the second network's hidden neurons to the first's (the alignment keeps its function)")
	fs.StringVar(&f.plot, "plot", "", "draw the error and bound to `FILE`.png or .svg")
	def := certjob.Default()
	fs.StringVar(&f.method, "method", def.Method.String(), "how to bound: sdp (the paper's SDP, checked; given explicitly, attempted whatever its size, the --timeout stopping it) or interval (bound propagation alone)")
	fs.StringVar(&f.norm, "norm", def.Norm.String(), "norm of the output difference: 2 or inf")
	fs.IntVar(&f.output, "output", -1, "bound |A_K(x1) - B_K(x2)| for output `K` only (0-based; -1: all outputs, by --norm)")
	return cmd
}

// runCompare loads the two models, certifies and prints.
func runCompare(cmd *cobra.Command, args []string, f *compareFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	opts, err := f.options(stderr)
	if err != nil {
		return err
	}
	ms, err := f.model.loadGraphPair(args)
	if err != nil {
		return err
	}
	// the copy's width for --pairing quantised, a chain or a graph
	if err := copyWidth(&opts, ms[1].Graph, args[1], stderr); err != nil {
		return err
	}
	if ms[0].Net == nil || ms[1].Net == nil || opts.Arith == certify.ArithFloat32 {
		return runCompareGraph(cmd, f, opts, ms)
	}
	nets := [2]*nn.Network{ms[0].Net, ms[1].Net}
	if err := f.selectOutput(&opts, nets[0].OutputSize()); err != nil {
		return err
	}
	box, err := f.input.boxNoted(nets[0].InputSize(), stderr)
	if err != nil {
		return err
	}
	if !f.noAlign {
		if nets[1], err = alignNoted(nets[0], nets[1], box, stderr); err != nil {
			return err
		}
	}
	c, err := opts.BoundShowing(cmd.Context(), nets[0], nets[1], box, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	return emitCertificate(cmd.Context(), stdout, c, f.json, nil, f.plot, func() (*report.Figure, error) {
		return experiment.Figure(cmd.Context(), nets[0], nets[1], box, opts, c, fmt.Sprintf("%s vs %s", filepath.Base(args[0]), filepath.Base(args[1])))
	})
}

// alignNoted returns g with its hidden neurons matched to f's over box
// (package align, which checks that g's function is kept), noting on
// stderr what moved; g itself when nothing did.
func alignNoted(f, g *nn.Network, box spec.Box, stderr io.Writer) (*nn.Network, error) {
	h, rep, err := verify.Align(f, g, box)
	if err != nil {
		return nil, err
	}
	if rep.Changed || rep.Refused != "" {
		fmt.Fprintf(stderr, "note: %s\n", rep)
	}
	return h, nil
}
