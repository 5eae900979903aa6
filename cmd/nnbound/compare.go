package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/search"
)

// pairFlags choose how the second network's input relates to the first's:
//
//	--pairing independent|same|quantised   (default independent)
//	--input-frac-bits FB                   quantised: x2 = q(x1) with FB fractional bits
//	--input-rounding trunc|nearest|floor   quantised: the rounding of q (default trunc)
type pairFlags struct {
	pairing  string
	fracBits int
	rounding string
}

func (p *pairFlags) register(cmd *cobra.Command, def bounds.Pairing, o certify.Options) {
	p.pairing, p.fracBits, p.rounding = def.String(), o.Quant.FracBits, o.Quant.Rounding.String()
	f := cmd.Flags()
	f.StringVar(&p.pairing, "pairing", p.pairing, "how x2 relates to x1: independent, same (x2 = x1) or quantised (x2 = q(x1))")
	f.IntVar(&p.fracBits, "input-frac-bits", p.fracBits, "fractional bits of the input quantiser q (--pairing quantised)")
	f.StringVar(&p.rounding, "input-rounding", p.rounding, "rounding of the input quantiser: trunc, nearest or floor")
}

// apply sets the pairing and quantiser of o.
func (p *pairFlags) apply(o *certify.Options) error {
	switch p.pairing {
	case "independent":
		o.Pairing = bounds.Independent
	case "same":
		o.Pairing = bounds.SameInput
	case "quantised", "quantized":
		o.Pairing = bounds.QuantisedInput
	default:
		return usagef("--pairing %q: want independent, same or quantised", p.pairing)
	}
	r, err := quantise.ParseRounding(p.rounding)
	if err != nil {
		return usagef("--input-rounding %q: want trunc, nearest or floor", p.rounding)
	}
	if p.fracBits < 0 || p.fracBits > 60 {
		return usagef("--input-frac-bits %d: want 0..60", p.fracBits)
	}
	o.Quant = quantise.Format{FracBits: p.fracBits, Rounding: r}
	return nil
}

// compareFlags are the flags of nnbound compare.
type compareFlags struct {
	input  inputFlags
	cert   certFlags
	pair   pairFlags
	json   bool
	plot   string
	core   bool
	method string
	norm   string
	output int
}

// apply sets the method, norm and output of o.
func (f *compareFlags) apply(o *certify.Options, nOut int) error {
	m, err := certify.ParseMethod(f.method)
	if err != nil {
		return usagef("--method %q: want sdp or interval", f.method)
	}
	o.Method = m
	n, err := search.ParseNorm(f.norm)
	if err != nil {
		return usagef("--norm %q: want 2 or inf", f.norm)
	}
	o.Norm = n
	if f.output >= 0 {
		if f.output >= nOut {
			return usagef("--output %d: the networks have %d outputs (0..%d)", f.output, nOut, nOut-1)
		}
		o.C = make([]float64, nOut)
		o.C[f.output] = 1
	}
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
inputs. By default x1 and x2 range over the box independently (the paper's
similarity problem); --pairing same compares the networks on the same
input and --pairing quantised feeds B the quantised input.

Exit status: 0 certified, 1 not certified (or an error), 2 usage error.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd, args, &f)
		},
	}
	f.input.register(cmd.Flags())
	f.cert.register(cmd.Flags())
	f.pair.register(cmd, bounds.Independent, f.cert.opts)
	cmd.Flags().BoolVar(&f.json, "json", false, "print the certificate as one JSON object")
	cmd.Flags().StringVar(&f.plot, "plot", "", "draw the error and bound to `FILE`.png or .svg")
	cmd.Flags().BoolVar(&f.core, "core", false, "load NNet models as their normalised core network (no input clipping or normalisation)")
	def := certify.DefaultOptions()
	cmd.Flags().StringVar(&f.method, "method", def.Method.String(), "how to bound: sdp (the paper's SDP, checked) or interval (bound propagation alone)")
	cmd.Flags().StringVar(&f.norm, "norm", def.Norm.String(), "norm of the output difference: 2 or inf")
	cmd.Flags().IntVar(&f.output, "output", -1, "bound |A_K(x1) - B_K(x2)| for output `K` only (0-based; -1: all outputs, by --norm)")
	return cmd
}

// runCompare loads the two models, certifies and prints.
func runCompare(cmd *cobra.Command, args []string, f *compareFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := f.input.check(); err != nil {
		return err
	}
	opts, err := f.cert.options(stderr)
	if err != nil {
		return err
	}
	if err := f.pair.apply(&opts); err != nil {
		return err
	}
	if f.output < -1 {
		return usagef("--output %d: want an output index >= 0", f.output)
	}
	if _, err := certify.ParseMethod(f.method); err != nil {
		return usagef("--method %q: want sdp or interval", f.method)
	}
	if _, err := search.ParseNorm(f.norm); err != nil {
		return usagef("--norm %q: want 2 or inf", f.norm)
	}
	if f.plot != "" {
		if err := report.CheckPath(f.plot); err != nil {
			return usageError{err}
		}
	}
	var nets [2]*nn.Network
	for i, path := range args {
		net, _, err := modelfile.Load(path, modelfile.Options{Core: f.core})
		if err != nil {
			return err
		}
		nets[i] = net
	}
	if nets[0].InputSize() != nets[1].InputSize() || nets[0].OutputSize() != nets[1].OutputSize() {
		return fmt.Errorf("%s has %d inputs and %d outputs but %s has %d and %d: they cannot be compared",
			args[0], nets[0].InputSize(), nets[0].OutputSize(), args[1], nets[1].InputSize(), nets[1].OutputSize())
	}
	box, _, err := f.input.box(nets[0].InputSize())
	if err != nil {
		return err
	}
	if err := f.apply(&opts, nets[0].OutputSize()); err != nil {
		return err
	}
	c, err := certify.Bound(cmd.Context(), nets[0], nets[1], box, opts)
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(newCertJSON(c, box, opts)); err != nil {
			return err
		}
	} else if err := writeCertificate(stdout, c, box, opts); err != nil {
		return err
	}
	if f.plot != "" && c.Certified {
		fig, err := certFigure(nets[0], nets[1], box, opts, c, fmt.Sprintf("%s vs %s", args[0], args[1]))
		if err != nil {
			return err
		}
		if err := fig.Save(f.plot); err != nil {
			return err
		}
	}
	if !c.Certified {
		return errNotCertified
	}
	return nil
}
