package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/duration"
	"github.com/nnbound/nnbound/internal/suite"
)

// newACASXuCmd returns the ACAS Xu float16 suite, its flags bound onto
// suite.DefaultACASOptions.
func newACASXuCmd() *cobra.Command {
	o := suite.DefaultACASOptions()
	cmd := &cobra.Command{
		Use:   "acasxu",
		Short: "Bound |f'_t - f_t| on the peers' ACAS Xu float16 instances and compare with NeuroDiff and ReluDiff+",
		Long: `For each instance (property, net) of the ACAS Xu float16 benchmark of
ReluDiff and NeuroDiff — f the ACAS Xu core network, f' its 16-bit copy as
the peers shipped it, x in the property's normalised box — certify a bound
on |f'_t(x) - f_t(x)| for the property's target output t, search for the
largest difference attained, and print a Markdown table next to the peers'
first-pass bounds (eps 0.05 runs) and the data's own largest difference.

Methods: interval (bound propagation of both networks and of their
difference, --bounds interval|symbolic|optimised), sdp (the certificate's
SDP), best (both; the smaller bound). Bounds are one-shot by default, over
the whole box like the peers' first pass; --pieces N lets both methods
split the box into up to N pieces.

Every bound is checked against every difference attained (ours and the
data's); a violation is reported on stderr and the exit status is 1. The
shared benchmark folder is data/benchmarks of the shared folder
(NNBOUND_SHARED), or --data; when it is absent the command says so and does
nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.DirGiven = cmd.Flags().Changed("data")
			return suite.ACASXu(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Props, "props", o.Props, "ACAS Xu properties")
	f.StringSliceVar(&o.Nets, "nets", nil, "nets i_j (default: every net each property was run on)")
	enumVar(f, &o.Method, "method", suite.ACASMethods, "bound: interval, sdp or best")
	duration.Var(f, &o.Timeout, "timeout", "time limit of one instance's bound (best falls back to interval)")
	duration.Var(f, &o.Search.TimeLimit, "search-time", "time limit of one instance's search for the largest difference")
	f.Uint64Var(&o.Search.Seed, "seed", o.Search.Seed, "seed of the searches")
	f.StringVar(&o.Solver, "solver", o.Solver, "SDP solver of the certificates: nnbound or csdp (the check is the same)")
	enumVar(f, &o.Bounds.Method, "bounds", boundsMethods, "bound propagation: interval, symbolic or optimised")
	f.IntVar(&o.Bounds.Split, "pieces", o.Bounds.Split, "input pieces a bound may split the box into (1: one-shot, like the peers' first pass)")
	f.BoolVar(&o.JSON, "json", false, "print one JSON object instead of the Markdown table")
	f.StringVar(&o.Out, "out", "", "also write the Markdown table to this file")
	f.StringVar(&o.Dir, "data", "", "benchmark folder (default: data/benchmarks of the shared folder)")
	return cmd
}
