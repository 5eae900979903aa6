package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/duration"
	"github.com/nnbound/nnbound/internal/suite"
)

// newVerifyCmd returns the verification suite, its flags bound onto
// suite.DefaultVerifyOptions (and so onto verify.DefaultOptions).
func newVerifyCmd() *cobra.Command {
	o := suite.DefaultVerifyOptions()
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Decide epsilon-equivalence (verify.Decide) on the VeriPrune or ACAS Xu float16 pairs",
		Long: `For each instance, decide whether g stays within eps of f on the box —
holds (proved), violated (an input, re-evaluated) or unknown — with
verify.Decide, and print a Markdown table: instance, verdict, wall and CPU
time, nodes, certified bound and largest difference found.

Suites: veriprune (the 45 ACAS Xu networks against their 5 % and 10 %
node-pruned fine-tuned copies, the spec's box, |f_k - g_k| <= eps for
every output k), acasxu (the 143 ACAS Xu float16 instances of the peers,
|f'_t - f_t| < eps for the property's target output t, beside NeuroDiff's
verdict and time at the same eps from reference-results.tsv).

Every counterexample is evaluated again here; a failed check is reported
on stderr and the exit status is 1. Timings are wall-clock on the machine
as loaded; the load average is printed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.DirGiven = cmd.Flags().Changed("data")
			return suite.Verify(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Suite, "suite", o.Suite, "veriprune or acasxu")
	f.Float64Var(&o.Eps, "eps", o.Eps, "tolerance of every compared output")
	duration.Var(f, &o.Timeout, "timeout", "time limit of one instance")
	duration.Var(f, &o.CPULimit, "cpu-timeout", "also stop an instance after this much process CPU time (0: none; unknown, cancelled), a limit the machine's load does not shorten")
	d := &o.Decide
	f.IntVar(&d.MaxNodes, "max-nodes", d.MaxNodes, "node limit of one instance (0: none)")
	f.BoolVar(&d.Forward, "forward", d.Forward, "bound each node first by forward propagation (verify.Options.Forward)")
	enumVar(f, &d.Split, "split", splitRules, "coordinate to halve: gradient, interval or difference (verify.Options.Split)")
	f.Float64Var(&d.OptimiseRatio, "optimise-ratio", d.OptimiseRatio, "bound nodes within this factor of eps with optimised slopes, 0 never (verify.Options.OptimiseRatio)")
	f.Float64Var(&d.EarlyStopRatio, "early-stop-ratio", d.EarlyStopRatio, "stop a node's optimised bound once it settles the node, checked before the last two hidden layers where the parent's bound was within this factor of eps, 0 never (verify.Options.EarlyStopRatio)")
	f.IntVar(&d.Batch, "batch", d.Batch, "nodes bounded together, best first, before their children are queued (verify.Options.Batch)")
	f.Float64Var(&d.ContinueRatio, "continue-ratio", d.ContinueRatio, "at that check, also stop a node's optimised bound above this factor of eps, 0 never (verify.Options.ContinueRatio)")
	f.Float64Var(&d.ContinueWinRate, "continue-win", d.ContinueWinRate, "at that check, stop every node's optimised bound while under this fraction of those that went on settled their node, 0 never (verify.Options.ContinueWinRate)")
	f.Float64Var(&d.OptimiseStep, "optimise-step", d.OptimiseStep, "step size of the slope optimisation (verify.Options.OptimiseStep)")
	f.Float64Var(&d.AttackRatio, "attack-ratio", d.AttackRatio, "attack nodes lightly below the root where the parent's attack found under this fraction of eps, 0 never (verify.Options.AttackRatio)")
	f.StringSliceVar(&o.Props, "props", nil, "acasxu: properties (default: all the peers ran)")
	f.StringSliceVar(&o.Nets, "nets", nil, "nets i_j (default: all)")
	f.StringVar(&o.Out, "out", "", "also write the Markdown table to this file")
	f.StringVar(&o.Dir, "data", "", "benchmark folder (default: data/benchmarks of the shared folder)")
	f.StringVar(&o.Profile, "cpuprofile", "", "write a CPU profile of the decisions to this file")
	return cmd
}
