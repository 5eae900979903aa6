package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/suite"
)

// newWideCmd returns the HAR and MNIST suite, its flags bound onto
// suite.DefaultWideOptions (and so onto certify.DefaultOptions).
func newWideCmd() *cobra.Command {
	o := suite.DefaultWideOptions()
	cmd := &cobra.Command{
		Use:   "wide",
		Short: "Prove |f'_t - f_t| < eps one-shot on the peers' HAR and MNIST float16 instances, beside NeuroDiff",
		Long: `For each instance of the HAR or MNIST 3x100 float16 benchmark of ReluDiff
and NeuroDiff (f the network, f' its 16-bit copy, the same input x in the
instance's box, computed in float32 as the peers do), compute the one-shot
sound bound on |f'_t(x) - f_t(x)| over the whole box by bound propagation
(certify.Propagate, the first pass of nnbound compare: same-input pairing,
--bounds interval|symbolic|optimised) and say "proved" when it is below the instance's eps. The Markdown table puts
each bound and its time (wall and CPU) beside NeuroDiff's first-pass bound
and its time to prove the instance; the summary gives the proved count,
the median and total times, the median ratio bound / NeuroDiff's first
pass and the peak resident memory.

Suites: har (100 instances, eps 0.25), mnist-global (perturbation 3/255 on
every pixel, eps 1) and mnist-3pix (the NeuroDiff table's first 3 random
pixels free in [0, 1], eps 1). Every network of the suite's NeuroDiff rows
in reference-results.tsv is run on the suite's 100 boxes where it and its
16-bit copy (NAME.nnet, NAME_16bit.nnet beside the tests' JSON) are in the
folder; the others are named as not run (MNIST: 3x100 is there, 2x512 and
4x1024 are not). --cpuprofile writes a CPU profile of the
bounds. The shared benchmark folder is data/benchmarks of the shared
folder (NNBOUND_SHARED), or --data.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return suite.Wide(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Suite, "suite", o.Suite, "har, mnist-global or mnist-3pix")
	f.IntVar(&o.Limit, "limit", 0, "run only the first N instances (0: all)")
	enumVar(f, &o.Propagate.Bounds, "bounds", boundsMethods, "bound propagation: interval, symbolic or optimised")
	f.IntVar(&o.Propagate.Optimise.Iterations, "iterations", o.Propagate.Optimise.Iterations, "optimised: gradient steps per layer")
	f.BoolVar(&o.Propagate.Optimise.Differences, "differences", o.Propagate.Optimise.Differences, "optimised: also optimise the slopes of the difference bounds")
	f.IntVar(&o.Propagate.Split, "split", o.Propagate.Split, "cut the box into this many pieces (bounds.Options.Split; 0: one shot)")
	f.StringVar(&o.Profile, "cpuprofile", "", "write a CPU profile of the bounds to this file")
	f.StringVar(&o.Dir, "data", "", "benchmark folder (default: data/benchmarks of the shared folder)")
	f.IntVar(&o.Search, "search", 0, "also search each box for the largest difference with this many evaluations (0: none)")
	return cmd
}
