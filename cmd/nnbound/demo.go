package main

import (
	"fmt"
	"strings"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/report"
	"github.com/spf13/cobra"
)

// demoPlot is where nnbound demo writes its figure by default.
const demoPlot = "nnbound-demo.png"

func newDemoCmd() *cobra.Command {
	var (
		in       inputFlags
		cf       certFlags
		fracBits int
		layers   int
		width    int
		netSeed  uint64
		plotPath string
		asJSON   bool
	)
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
			if err := checkFracBits(fracBits); err != nil {
				return err
			}
			if layers < 1 || layers > 6 || width < 1 || width > 64 {
				return usagef("--layers %d --width %d: want 1 to 6 layers of 1 to 64 neurons", layers, width)
			}
			if plotPath != "" {
				if err := checkPlot(plotPath); err != nil {
					return err
				}
			}
			if err := in.check(); err != nil {
				return err
			}
			opts, err := cf.options(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("time-budget") {
				opts = deterministic(opts)
			}
			opts.Pairing = bounds.QuantisedInput
			opts.Quant = quantise.Format{FracBits: fracBits}

			f1 := randnet.Paper(netSeed, 1, layers, width, 1)
			qo := quantise.DefaultOptions()
			qo.Weights.FracBits, qo.Biases.FracBits = fracBits, fracBits
			f2, err := quantise.Network(f1, qo)
			if err != nil {
				return err
			}
			box, err := in.boxNoted(1, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			c, err := certify.Bound(cmd.Context(), f1, f2, box, opts)
			if err != nil {
				return err
			}
			arch := strings.Repeat(fmt.Sprintf("-%d", width), layers)
			title := fmt.Sprintf("Random 1%s-1 ReLU network vs its FB = %d copy", arch, fracBits)
			written := ""
			if plotPath != "" && c.Certified {
				fig, err := certFigure(f1, f2, box, opts, c, title)
				if err != nil {
					return err
				}
				if err := fig.Save(plotPath); err != nil {
					return err
				}
				written = plotPath
			}
			out := cmd.OutOrStdout()
			if asJSON {
				j := newCertJSON(c, box, opts)
				j.Plot = written
				if err := report.WriteJSON(out, j); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(out, "nnbound demo: a random 1%s-1 ReLU network (standard normal weights, seed %d)\n", arch, netSeed)
				fmt.Fprintf(out, "against its copy with weights, biases and input quantised to %d fractional bits.\n\n", fracBits)
				if err := writeCertificate(out, c, box, opts); err != nil {
					return err
				}
				switch {
				case written != "":
					fmt.Fprintf(out, "%-15s %s (error and bound against the input, log scale)\n", "figure", written)
				case plotPath != "":
					fmt.Fprintf(out, "%-15s none (there is no bound to draw)\n", "figure")
				}
			}
			if !c.Certified {
				return errNotCertified
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&fracBits, "frac-bits", 2, "fractional bits of the quantised copy (weights, biases and input)")
	fs.IntVar(&layers, "layers", 2, "hidden layers of the random network")
	fs.IntVar(&width, "width", 10, "neurons per hidden layer")
	fs.Uint64Var(&netSeed, "net-seed", 1, "seed of the random network")
	fs.StringVar(&plotPath, "plot", demoPlot, "write the figure to this `FILE` (.png or .svg; \"\" for none)")
	fs.BoolVar(&asJSON, "json", false, "print the certificate as JSON")
	in.register(fs)
	cf.register(fs)
	return cmd
}

// checkFracBits reports a fractional bit count outside what quantise
// accepts, as a usage error.
func checkFracBits(fb int) error {
	if fb < 1 || fb > quantise.MaxFracBits {
		return usagef("--frac-bits %d: want 1 to %d", fb, quantise.MaxFracBits)
	}
	return nil
}
