package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/duration"
	"github.com/nnbound/nnbound/report"
	"github.com/nnbound/nnbound/sdp"
	"github.com/nnbound/nnbound/sdp/sdpa"
)

// solveSDP is the solver "nnbound solve" calls; tests replace it to check
// the output against golden files independently of the solver's digits.
var solveSDP = sdp.Solve

// solveTimeout is the default --timeout of solve: the library's
// sdp.Settings has no limit, but a command line run should end by itself.
const solveTimeout = 10 * time.Minute

func newSolveCmd() *cobra.Command {
	s := sdp.DefaultSettings()
	if s.TimeLimit == 0 {
		s.TimeLimit = solveTimeout
	}
	var jsonOut, verbose bool
	cmd := &cobra.Command{
		Use:   "solve FILE.dat-s",
		Short: "Solve an SDP in SDPA sparse format",
		Long: `Solve reads a semidefinite program in SDPA sparse format (.dat-s, as in
SDPLIB) and solves it with nnbound's interior-point solver:

    minimise c^T x  subject to  sum_i F_i x_i - F_0  positive semidefinite
    maximise F_0 . Y  subject to  F_i . Y = c_i,  Y positive semidefinite

It prints the status, the primal and dual objectives (with SDPA's signs,
as CSDP and SDPA print them), the final relative gap and infeasibilities,
the iterations and the solve time in seconds. A solve stopped by
--timeout (default 10 minutes) has the status time_limit. With --json it prints one
JSON object instead; non-finite numbers are null. With -v the solver's
iteration log goes to stderr.

Exit status: 0 when the status is optimal, 1 otherwise or on an error,
2 for a usage error.`,
		Example: `  nnbound solve problem.dat-s
  nnbound solve problem.dat-s --timeout 1m --json -v`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := s.Validate(); err != nil {
				return usageError{settingsFlagError(err)}
			}
			if verbose {
				s.Log = cmd.ErrOrStderr()
			}
			return runSolve(cmd.Context(), cmd.OutOrStdout(), args[0], &s, jsonOut)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&jsonOut, "json", false, "print one JSON object instead of text")
	f.BoolVarP(&verbose, "verbose", "v", false, "print the solver's iteration log to stderr")
	f.Float64Var(&s.GapTol, "gap-tol", s.GapTol, "relative duality gap below which a feasible point is optimal")
	f.Float64Var(&s.FeasTol, "feas-tol", s.FeasTol, "relative primal and dual infeasibility counted as feasible")
	f.IntVar(&s.MaxIter, "max-iter", s.MaxIter, "largest number of interior-point iterations")
	duration.Var(f, &s.TimeLimit, "timeout", "stop the solve after this long (0: no limit; --time-limit is another name)")
	return cmd
}

// settingsFlagError rewrites an sdp.Settings validation error to name the
// flag instead of the field.
func settingsFlagError(err error) error {
	r := strings.NewReplacer(
		"sdp: Settings.GapTol", "--gap-tol",
		"sdp: Settings.FeasTol", "--feas-tol",
		"sdp: Settings.MaxIter", "--max-iter",
		"sdp: Settings.TimeLimit", "--timeout",
	)
	return fmt.Errorf("%s", r.Replace(err.Error()))
}

// runSolve reads and solves path and prints the result; it returns
// errNotCertified when the status is not optimal.
func runSolve(ctx context.Context, stdout io.Writer, path string, s *sdp.Settings, jsonOut bool) error {
	p, err := sdpa.Read(path)
	if err != nil {
		return err
	}
	start := time.Now()
	r, err := solveSDP(ctx, p, s)
	wall := time.Since(start)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if r == nil {
		return fmt.Errorf("%s: the solver returned no result", path)
	}
	out := report.NewSolveRecord(path, p, r, wall)
	if jsonOut {
		err = report.WriteJSON(stdout, out)
	} else {
		err = out.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if r.Status != sdp.Optimal {
		return errNotCertified
	}
	return nil
}
