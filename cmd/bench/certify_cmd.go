package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/suite"
)

// newCertifyCmd returns the certify benchmark: the certificate's speed,
// the default QC set against the authors', and the tightness of the
// bound, on seeded random networks as in the paper (n_x = n_f = 1, l
// hidden layers of 10 ReLU, standard normal weights, box [-1, 1]).
func newCertifyCmd() *cobra.Command {
	f := suite.DefaultCertifyOptions()
	cmd := &cobra.Command{
		Use:   "certify",
		Short: "Benchmark the certificate: speed against csdp, default vs paper QC set, tightness",
		Long: `Benchmark the certificate on seeded random networks as in the paper
(n_x = n_f = 1, l hidden layers of 10 ReLU, standard normal weights,
box [-1, 1]) and print Markdown tables:

  speed      the authors' SDP (--qc paper, unit weights) of a Table 1
             instance per depth, solved by nnbound and by csdp on the same
             exported SDPA problem: times and objectives
  default    Table 1 (self-compare) and Table 2 (FB = 2 copy, quantised
             input) instances: the default QC set against the paper set
             (both with worst-case weights; the paper set solved by
             --paper-solver): wall and CPU times and bound ratio
  tightness  Table 2 instances at l = 2, 3: certified bound / exact largest
             error (median), with the default QC set
  families   what each family of constraints of the default set buys: the
             root SDP of the --acas instances (ACAS Xu float16, same input,
             target output) and of Table 1 and 2 instances (--runs seeds
             per depth of --layers) with each family removed or added
  bounds     the pre-activation bounds of the default set: symbolic,
             optimised, optimised on 16 pieces of the box (certjob.Job
             Bounds and Split) on Table 1 and 2 instances (--runs seeds per
             depth of --layers): CPU and wall time, bound / observed error
  infnorm    the inf-norm by one SDP per output against one SDP with
             per-output gammas (certjob.Job.InfJoint), on the --acas
             instances and on random networks with 3 outputs against their
             FB = 2 copies (--runs seeds per depth of --layers)
  scale      one SDP for an ACAS Xu network and its float16 copy (6 x 50
             ReLU each) on the whole input domain (--scale-nets): size,
             time, bound and peak resident memory

--solver csdp solves the certificate's SDPs with csdp instead of nnbound's
solver (the check of every solution is the same). --paper-solver csdp
solves the paper set of the default experiment, its reference, with csdp
(by default with the solver of --solver).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return suite.Certify(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Experiments, "experiments", f.Experiments, "experiments to run, comma-separated")
	fl.IntVar(&f.Runs, "runs", f.Runs, "instances per row (default and tightness)")
	fl.StringVar(&f.Layers, "layers", f.Layers, "depths l for speed and default")
	fl.StringVar(&f.Solver, "solver", f.Solver, "SDP solver of the certificates: nnbound or csdp")
	fl.StringVar(&f.PaperSolver, "paper-solver", f.PaperSolver, "SDP solver of the paper set in the default experiment: nnbound or csdp (default --solver)")
	fl.Uint64Var(&f.Seed, "seed", f.Seed, "first seed of the instances")
	fl.StringSliceVar(&f.ACAS, "acas", f.ACAS,
		"ACAS Xu instances prop/net of the families and infnorm experiments")
	fl.StringVar(&f.SDPADir, "sdpa", f.SDPADir, "folder to write the SDPs of the speed experiment to (SDPA format), for other solvers")
	fl.StringSliceVar(&f.ScaleNets, "scale-nets", f.ScaleNets, "ACAS Xu nets i_j of the scale experiment")
	return cmd
}
