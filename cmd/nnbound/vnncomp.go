package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/vnncomp"
)

// errInterrupted is returned by "nnbound vnncomp" when a signal stopped
// the run; it wraps context.Canceled.
var errInterrupted = fmt.Errorf("vnncomp: interrupted; finished rows are kept, run the same command again to resume: %w", context.Canceled)

// newVnncompCmd returns "nnbound vnncomp", which runs a VNN-COMP
// instances file with decide deciding each row; getenv (os.Getenv) gives
// the shard when --shard is absent.
func newVnncompCmd(decide vnncomp.Decider, getenv func(string) string) *cobra.Command {
	var out, shard string
	cmd := &cobra.Command{
		Use:   "vnncomp INSTANCES.csv",
		Short: "Run a VNN-COMP two-network benchmark, resumably, on one shard of its rows",
		Long: `Run every row of a VNN-COMP instances file,

  "[('f', 'onnx/A.onnx'), ('g', 'onnx/B.onnx')]",vnnlib/spec.vnnlib,100

(paths relative to the file's folder), writing one result file per row in
VNN-COMP's format (unsat, sat with the counterexample, timeout, unknown)
to --out, a JSON-lines log beside them, and a summary table to stdout.
Rows that already have a result file are not run again, so rerunning the
command resumes. --shard K/N runs only the rows i with i mod N == K; when
absent, the shard comes from a Slurm array job (SLURM_ARRAY_TASK_ID,
SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN) or a Kubernetes Indexed Job
(JOB_COMPLETION_INDEX, with NNBOUND_SHARD_COUNT set to its completions),
else it is 0/1, every row. docs/cluster.md has an sbatch script and a Job
manifest.

A row that cannot run (a missing file, a malformed line) is reported on
one line, gets no result file, and the other rows still run.

Exit status: 0 every row of the shard ran, 1 a row ended in error (or the
run failed), 2 usage error; interrupted (SIGINT, SIGTERM), the run stops
after keeping the rows already finished.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := vnncompShard(cmd, shard, getenv)
			if err != nil {
				return err
			}
			sum, err := vnncomp.Run(cmd.Context(), args[0], decide, vnncomp.Options{Dir: out, Shard: s, Report: cmd.ErrOrStderr()})
			if sum != nil {
				if werr := sum.WriteTable(cmd.OutOrStdout()); werr != nil && err == nil {
					err = werr
				}
			}
			switch {
			case errors.Is(err, context.Canceled):
				return errInterrupted
			case err != nil:
				return err
			case sum.Failed():
				return fmt.Errorf("vnncomp: %d rows ended in error (the log %s says why)",
					sum.Counts[vnncomp.Error], filepath.Join(out, vnncomp.LogFile(s)))
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&out, "out", "vnncomp-results", "write result files and the log to `DIR` (created if missing)")
	fs.StringVar(&shard, "shard", "", "run shard `K/N`: the rows i with i mod N == K (default: from Slurm or Kubernetes, else 0/1)")
	return cmd
}

// vnncompShard returns the shard of --shard, else of the environment,
// else all rows; the shard found in the environment is reported on
// stderr.
func vnncompShard(cmd *cobra.Command, flag string, getenv func(string) string) (vnncomp.Shard, error) {
	if flag != "" {
		s, err := vnncomp.ParseShard(flag)
		if err != nil {
			return s, usageError{err}
		}
		return s, nil
	}
	s, from, ok, err := vnncomp.ShardFromEnv(getenv)
	if err != nil {
		return s, err
	}
	if !ok {
		return vnncomp.All, nil
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "vnncomp: shard %s (from %s)\n", s, from)
	return s, nil
}
