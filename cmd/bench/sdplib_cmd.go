package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/duration"
	"github.com/nnbound/nnbound/internal/suite"
)

// newSDPLIBCmd returns the SDPLIB suite: nnbound and the C solvers.
func newSDPLIBCmd() *cobra.Command {
	o := suite.DefaultSDPLIBOptions()
	cmd := &cobra.Command{
		Use:   "sdplib [FILE.dat-s ...]",
		Short: "Time nnbound and the installed C solvers on SDPLIB problems",
		Long:  "See the package documentation (go doc ./cmd/bench) for the table and the checks.",
		RunE: func(cmd *cobra.Command, files []string) error {
			return suite.SDPLIB(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &o, files)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Solvers, "solvers", o.Solvers, "solvers to run (those not installed are skipped)")
	duration.Var(f, &o.Timeout, "timeout", "time limit of one solver run")
	f.IntVar(&o.Runs, "runs", o.Runs, "runs per solver and problem, median taken (one if the first takes >= 10 s)")
	f.BoolVar(&o.JSON, "json", false, "print one JSON object instead of the Markdown table")
	f.StringVar(&o.Nnbound, "nnbound", "", "use this nnbound binary instead of building one")
	f.StringVar(&o.Dir, "sdplib", o.Dir, "SDPLIB folder (holds optimal.tsv and reference-times.tsv)")
	return cmd
}
