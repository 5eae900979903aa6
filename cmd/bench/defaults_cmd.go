package main

import (
	"fmt"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/suite"
)

func newDefaultsCmd() *cobra.Command {
	var dir, only, profile string
	limit := 10
	cmd := &cobra.Command{
		Use:   "defaults",
		Short: "Run nnbound compare's default path on the peers' ACAS Xu (properties 3, 4), HAR and MNIST 3x100 instances",
		Long: `For each instance, certify |f'_t - f_t| over the instance's box as
"nnbound compare F F16 --core --pairing same --output T --lo .. --hi .."
does with its default flags (certjob.Default, the same input, the target
output): the bound, the largest error found, their ratio, why the
refinement stopped, the pieces, and the CPU and wall seconds. HAR and MNIST
rows also give the one-shot symbolic bound of "bench wide" (certify.Propagate),
and ACAS Xu rows compare's default bound at commit d6b939f (64 SDP pieces),
which the default must not exceed. ACAS Xu: the 84 instances of properties
3 and 4; HAR and MNIST: the first --limit instances; --only keeps the
instances whose "suite instance" (e.g. "acasxu 3/1_1") its regular
expression matches. --cpuprofile writes a CPU profile of the runs (go tool
pprof reads it).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var re *regexp.Regexp
			if only != "" {
				var err error
				if re, err = regexp.Compile(only); err != nil {
					return fmt.Errorf("bench defaults: --only: %w", err)
				}
			}
			return suite.Defaults(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), dir, cmd.Flags().Changed("data"), limit, re, profile)
		},
	}
	cmd.Flags().StringVar(&dir, "data", "", "benchmark folder (default: data/benchmarks of the shared folder)")
	cmd.Flags().IntVar(&limit, "limit", limit, "HAR and MNIST instances to run")
	cmd.Flags().StringVar(&profile, "cpuprofile", "", "write a CPU profile of the runs to this file")
	cmd.Flags().StringVar(&only, "only", "", `run only the instances whose "suite instance" this regular expression matches`)
	return cmd
}
