package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/vnncomp"
	"github.com/nnbound/nnbound/vnncomp/equiv"
)

// newVnncompCmd returns "nnbound vnncomp", which runs a VNN-COMP
// instances file with decide deciding each row (nil: package equiv's
// decider, configured by the flags); getenv (os.Getenv) gives the shard
// when --shard is absent.
func newVnncompCmd(decide vnncomp.Decider, getenv func(string) string) *cobra.Command {
	var out, shard string
	var scale float64
	var jsonOut bool
	eo := equiv.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "vnncomp INSTANCES.csv",
		Short: "Run a VNN-COMP two-network benchmark, resumably, on one shard of its rows",
		Long: `Run every row of a VNN-COMP instances file,

  "[('f', 'onnx/A.onnx'), ('g', 'onnx/B.onnx')]",vnnlib/spec.vnnlib,100

(paths relative to the file's folder), writing one result file per row in
VNN-COMP's format (unsat, sat with the counterexample, timeout, unknown)
to --out, a JSON-lines log beside them, and a summary table to stdout
(--json: one JSON object).
Rows that already have a result file are not run again, so rerunning the
command resumes. --shard K/N runs only the rows i with i mod N == K; when
absent, the shard comes from a Slurm array job (SLURM_ARRAY_TASK_ID,
SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN) or a Kubernetes Indexed Job
(JOB_COMPLETION_INDEX, with NNBOUND_SHARD_COUNT set to its completions),
else it is 0/1, every row. docs/cluster.md has an sbatch script and a Job
manifest.

An equivalence row is decided by "nnbound verify" on its VNN-LIB 2.0
property, after aligning g's hidden neurons to f's (--no-align turns that
off; computation graphs, with residual joins and the like, are decided
through the graphs, unaligned); a relational row (monotonicity,
disjunctions, input links) or a VNN-LIB 1 row of one network, chains of
layers only so far, by branch and bound over the joint input.
Each row gets its time limit times --timeout-scale, and a verdict found
after it is written as timeout; a counterexample is evaluated again on the
networks as read and checked against the property before it is written as
sat. "nnbound vnncomp run-instance" decides one instance, as the
competition's scripts (vnncomp/scripts) call it.

A row that cannot run (a missing file, a malformed line) is reported on
one line, gets the result file "error", and the other rows still run; a
rerun runs it again.

Exit status: 0 every row of the shard ran, 1 a row ended in error (or the
run failed), 2 usage error; interrupted (SIGINT, SIGTERM), the run stops
after keeping the rows already finished.`,
		Example: `  nnbound vnncomp docs/examples/vnncomp-sin3x/instances.csv --out results
  nnbound vnncomp instances.csv --out results --shard 1/4 --timeout-scale 0.5 --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := vnncompShard(cmd, shard, getenv)
			if err != nil {
				return err
			}
			if !(scale > 0) || math.IsInf(scale, 0) {
				return usagef("--timeout-scale %v: want a positive number", scale)
			}
			d := decide
			if d == nil {
				d = equiv.Decider(eo)
			}
			sum, err := vnncomp.Run(cmd.Context(), args[0], d, vnncomp.Options{Dir: out, Shard: s, Report: cmd.ErrOrStderr(), TimeoutScale: scale})
			if sum != nil {
				write := sum.WriteTable
				if jsonOut {
					write = func(w io.Writer) error { return report.WriteJSON(w, sum) }
				}
				if werr := write(cmd.OutOrStdout()); werr != nil && err == nil {
					err = werr
				}
			}
			switch {
			case errors.Is(err, context.Canceled):
				// A signal stopped the run. (Built here, not in a
				// package variable: fmt.Errorf would run at every
				// start of every command.)
				return fmt.Errorf("vnncomp: interrupted; finished rows are kept, run the same command again to resume: %w", context.Canceled)
			case err != nil:
				return err
			}
			return sum.Err(out)
		},
	}
	cmd.AddCommand(newVnncompInstanceCmd(decide))
	fs := cmd.Flags()
	fs.StringVar(&out, "out", "vnncomp-results", "write result files and the log to `DIR` (created if missing)")
	fs.Float64Var(&scale, "timeout-scale", 1, "multiply every row's time limit by `S`")
	fs.BoolVar(&eo.NoAlign, "no-align", false, "do not match g's hidden neurons to f's before deciding")
	fs.IntVar(&eo.Verify.MaxNodes, "max-nodes", eo.Verify.MaxNodes, "stop a row with unknown after bounding this many boxes (0: no limit)")
	fs.BoolVar(&jsonOut, "json", false, "print the summary as one JSON object instead of a table")
	fs.StringVar(&shard, "shard", "", "run shard `K/N`: the rows i with i mod N == K (default: from Slurm or Kubernetes, else 0/1)")
	return cmd
}

// vnncompShard returns the shard of --shard, else of the environment,
// else all rows; the shard found in the environment is reported on
// stderr.
func vnncompShard(cmd *cobra.Command, flag string, getenv func(string) string) (vnncomp.Shard, error) {
	s, from, err := vnncomp.PickShard(flag, getenv)
	switch {
	case err != nil && flag != "":
		return s, usageError{err}
	case err == nil && from != "":
		fmt.Fprintf(cmd.ErrOrStderr(), "vnncomp: shard %s (from %s)\n", s, from)
	}
	return s, err
}
