package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/suite"
)

// newRootSDPCmd returns the root SDP of a VeriPrune pair.
func newRootSDPCmd() *cobra.Command {
	o := suite.DefaultRootSDPOptions()
	cmd := &cobra.Command{
		Use:   "rootsdp",
		Short: "Solve the root SDP of two different 6x50 ACAS Xu networks (a VeriPrune pair) and time it",
		Long: `Build the root SDP of "nnbound compare F G --pairing same" (certify.Problem,
the default QC set) for a VeriPrune pair — F an ACAS Xu network, G its
node-pruned and fine-tuned copy — over the box of the benchmark's
equivalence_eps0.05.vnnlib, for the difference of output --output (one of
the SDPs of --norm inf) or the 2-norm (--output -1), solve it with
nnbound's solver with the settings "nnbound compare" gives it
(certify.DefaultOptions().Solver: gap 1e-5, feasibility 1e-6, starting
dual matrix I) and print its size, status, objective, iterations, wall
and CPU time and peak resident memory. --sdp-defaults solves it with the
solver's own defaults instead (gap and feasibility 1e-8, CSDP's starting
point), as this benchmark did before. --plain drops the SDP's basis
(sdp.Basis), so that the solver works with the factors' dense vectors as
before the basis existed: the same problem, solved the slower way. The
objective is the solver's, unchecked; "nnbound compare" checks it.
The networks are read from data/benchmarks/veriprune of the shared folder
(NNBOUND_SHARED), or --data.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return suite.RootSDP(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Net, "net", o.Net, "ACAS Xu network i_j")
	f.StringVar(&o.Pruned, "pruned", o.Pruned, "pruned copy: 5 or 10 (per cent of the neurons)")
	f.IntVar(&o.Output, "output", 0, "output K (-1: the 2-norm of the difference)")
	f.BoolVar(&o.Plain, "plain", false, "solve without the basis (the factors as dense vectors)")
	f.BoolVar(&o.Bare, "sdp-defaults", false, "solve with sdp.DefaultSettings() instead of certify's solver settings")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "print the solver's iteration log on stderr")
	f.StringVar(&o.Profile, "cpuprofile", "", "write a CPU profile of the solve to this file")
	f.StringVar(&o.Dir, "data", "", "VeriPrune folder (default: data/benchmarks/veriprune of the shared folder)")
	return cmd
}
