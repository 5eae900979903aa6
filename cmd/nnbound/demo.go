package main

import (
	"fmt"
	"strings"

	"github.com/nnbound/nnbound/experiment"
	"github.com/nnbound/nnbound/internal/certjob"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/spec"
	"github.com/spf13/cobra"
)

// demoPlot is where nnbound demo writes its figure by default.
const demoPlot = "nnbound-demo.png"

// demoFlags are the flags of nnbound demo.
type demoFlags struct {
	input    inputFlags
	cert     certFlags
	fracBits int
	layers   int
	width    int
	netSeed  uint64
	plot     string
	json     bool
}

func newDemoCmd() *cobra.Command {
	var f demoFlags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Certify a quantised network end to end on an embedded example",
		Long: `Demo certifies the paper's example with no input files: a random network with
one input, two hidden layers of 10 ReLU neurons and one output (standard normal
weights and biases, as the authors drew them), against its copy quantised to 2
fractional bits, weights, biases and input alike (truncation toward zero), over
the input box [-1, 1]. It prints the certificate and writes the figure of the
error and the bound against the input.`,
		Example: `  nnbound demo
  nnbound demo --frac-bits 4 --plot demo.svg
  nnbound demo --layers 3 --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd, &f)
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&f.fracBits, "frac-bits", 2, "fractional bits of the quantised copy (weights, biases and input)")
	fs.IntVar(&f.layers, "layers", 2, "hidden layers of the random network")
	fs.IntVar(&f.width, "width", 10, "neurons per hidden layer")
	fs.Uint64Var(&f.netSeed, "net-seed", 1, "seed of the random network")
	fs.StringVar(&f.plot, "plot", demoPlot, "write the figure to this `FILE` (.png or .svg; \"\" for none)")
	fs.BoolVar(&f.json, "json", false, "print the certificate as JSON")
	f.input.register(fs)
	f.cert.register(fs)
	f.cert.noTimeBudget(fs)
	return cmd
}

// options validates the flags and returns the certification options: the
// input quantised like the copy, and no time budget unless one is given.
func (f *demoFlags) options(cmd *cobra.Command) (certjob.Job, error) {
	if err := checkFracBits(f.fracBits); err != nil {
		return certjob.Job{}, err
	}
	if f.layers < 1 || f.layers > 6 || f.width < 1 || f.width > 64 {
		return certjob.Job{}, usagef("--layers %d --width %d: want 1 to 6 layers of 1 to 64 neurons", f.layers, f.width)
	}
	if f.plot != "" {
		if err := checkPlot(f.plot); err != nil {
			return certjob.Job{}, err
		}
	}
	if err := f.input.check(); err != nil {
		return certjob.Job{}, err
	}
	opts, err := f.cert.options(cmd.ErrOrStderr())
	if err != nil {
		return certjob.Job{}, err
	}
	opts.Pairing = spec.QuantisedInput
	opts.Quant = quantise.Format{FracBits: f.fracBits}
	return opts, nil
}

// runDemo certifies the random network against its quantised copy and
// prints the certificate, with the figure under --plot.
func runDemo(cmd *cobra.Command, f *demoFlags) error {
	opts, err := f.options(cmd)
	if err != nil {
		return err
	}
	f1, f2, err := experiment.PaperPair(f.netSeed, f.layers, f.width, f.fracBits)
	if err != nil {
		return err
	}
	box, err := f.input.boxNoted(1, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	c, err := opts.BoundShowing(cmd.Context(), f1, f2, box, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	arch := strings.Repeat(fmt.Sprintf("-%d", f.width), f.layers)
	out := cmd.OutOrStdout()
	if !f.json {
		fmt.Fprintf(out, "nnbound demo: a random 1%s-1 ReLU network (standard normal weights, seed %d)\n", arch, f.netSeed)
		fmt.Fprintf(out, "against its copy with weights, biases and input quantised to %d fractional bits.\n\n", f.fracBits)
	}
	return emitCertificate(cmd.Context(), out, c, f.json, nil, f.plot, func() (*report.Figure, error) {
		title := fmt.Sprintf("Random 1%s-1 ReLU network vs its FB = %d copy", arch, f.fracBits)
		return experiment.Figure(cmd.Context(), f1, f2, box, opts, c, title)
	})
}

// checkFracBits reports a fractional bit count outside what quantise
// accepts, as a usage error.
func checkFracBits(fb int) error {
	if fb < 1 || fb > quantise.MaxFracBits {
		return usagef("--frac-bits %d: want 1 to %d", fb, quantise.MaxFracBits)
	}
	return nil
}
