package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nnbound/nnbound/internal/gzfile"
	"github.com/nnbound/nnbound/internal/interrupt"
	"github.com/nnbound/nnbound/internal/numtext"
	"github.com/nnbound/nnbound/internal/progress"
	"github.com/nnbound/nnbound/report"
)

// Exit codes of nnbound.
const (
	exitOK    = 0 // success; for certifying commands, certified
	exitFail  = 1 // not certified, or an error
	exitUsage = 2 // bad command line
	// exitCancelled: SIGINT or SIGTERM stopped the command, which printed
	// what it had finished (128 + SIGINT, as shells report it).
	exitCancelled = 130
)

// usageError marks an error in the command line (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error with a formatted message.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// errNotCertified is returned by certifying commands whose result is printed
// but not certified; run maps it to exit code 1 without printing it again.
var errNotCertified = errors.New("not certified")

// errCancelled is returned by commands that a signal stopped after they
// printed what they had finished; run prints one line and exits 130.
var errCancelled = errors.New("cancelled")

// run executes nnbound with args. A command starts its work under
// interrupt.Context, which the first SIGINT or SIGTERM cancels: every
// command then stops its solver, prints what it had finished and removes
// its temporary files; see runContext.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), interrupt.Context, args, stdout, stderr)
}

// runContext executes nnbound with args, writing results to stdout and
// diagnostics to stderr, and returns the process exit code: exitCancelled
// when ctx was cancelled before the command finished. A panic (a bug)
// becomes one line on stderr and exit code 1, unless NNBOUND_TRACEBACK is
// set.
//
// When signals is not nil, ctx becomes signals(ctx) when a command starts
// its work (the root's PersistentPreRun), not before: help, usage errors
// and "nnbound version" (which opts out) then install no signal handler,
// whose two threads were about 6 % of the start-up of version. A command
// with a PersistentPreRun of its own replaces this one.
func runContext(ctx context.Context, signals func(context.Context) (context.Context, context.CancelFunc),
	args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			if os.Getenv("NNBOUND_TRACEBACK") != "" {
				panic(r)
			}
			fmt.Fprintf(stderr, "nnbound: internal error: %v (a bug: please report it with the command line; NNBOUND_TRACEBACK=1 shows the stack)\n", r)
			code = exitFail
		}
	}()
	gzfile.SetWarnings(stderr) // a stale x.onnx beside x.onnx.gz
	defer gzfile.SetWarnings(nil)
	root := newRootCmd(stdout, stderr, args...)
	stop := func() {}
	defer func() { stop() }()
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		cmd.SetErr(progressWriter(cmd))
		if signals != nil {
			ctx, stop = signals(ctx)
			cmd.SetContext(ctx)
		}
	}
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	switch {
	case ctx.Err() != nil:
		msg := "cancelled: stopped by a signal; results finished before it are printed above"
		if err != nil && err != context.Canceled && !errors.Is(err, errNotCertified) && !errors.Is(err, errCancelled) {
			msg = err.Error()
		}
		fmt.Fprintln(stderr, "nnbound: "+msg)
		return exitCancelled
	case err == nil:
		return exitOK
	case errors.Is(err, errNotCertified):
		return exitFail
	}
	fmt.Fprintf(stderr, "nnbound: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") {
		return exitUsage
	}
	return exitFail
}

// subcommands are nnbound's commands in the order help lists them, each
// with the function that builds it.
var subcommands = []struct {
	name  string
	build func() *cobra.Command
}{
	{"demo", newDemoCmd},
	{"compare", newCompareCmd},
	{"quantise", newQuantiseCmd},
	{"prune", newPruneCmd},
	{"sweep", newSweepCmd},
	{"allocate", newAllocateCmd},
	{"paper", newPaperCmd},
	{"inspect", newInspectCmd},
	{"eval", newEvalCmd},
	{"verify", newVerifyCmd},
	{"vnncomp", func() *cobra.Command { return newVnncompCmd(nil, os.Getenv) }},
	{"agree", func() *cobra.Command { return newAgreeCmd(os.Getenv) }},
	{"solve", newSolveCmd},
	{"export", newExportCmd},
	{"version", newVersionCmd},
}

// newRootCmd builds the command tree for the command line args (the
// whole tree for none). It is cobra's rather than the standard flag
// package's because eleven subcommands share flag groups (certFlags,
// inputFlags, modelFlags) and want GNU-style flags (--frac-bits, with -v
// and -o as shorthands), per-command help generated from the flags'
// defaults, and usage errors raised before any work; with the flag
// package each of those is hand-written. The price is a dependency and
// about half a millisecond of start-up.
//
// When args[0] names a subcommand, only that one is built: building the
// others (their flag sets) took about a tenth of the start-up of
// "nnbound version". Anything else (no arguments, a flag, help,
// completion, an alias, an unknown name, which cobra answers with
// suggestions) gets the whole tree.
func newRootCmd(stdout, stderr io.Writer, args ...string) *cobra.Command {
	root := &cobra.Command{
		Use:           "nnbound",
		Short:         "Certify how far a compressed neural network can drift from the original",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().Bool("quiet", false, "no progress lines on stderr")
	root.PersistentFlags().Bool("progress", false, "progress lines on stderr (every 2 s) even when stderr is not a terminal")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	for _, sc := range subcommands {
		if len(args) > 0 && args[0] == sc.name {
			root.AddCommand(sc.build())
			root.SetGlobalNormalizationFunc(timeoutAlias)
			// The completion command (five commands cobra builds at
			// every start) cannot be the one run: leave it out.
			root.CompletionOptions.DisableDefaultCmd = true
			return root
		}
	}
	for _, sc := range subcommands {
		root.AddCommand(sc.build())
	}
	root.SetGlobalNormalizationFunc(timeoutAlias)
	return root
}

// progressWriter returns the stderr a command's progress goes to: under
// --quiet one the progress bars and status lines stay off, under
// --progress one they draw on as whole lines even off a terminal;
// otherwise stderr itself (they draw only on a terminal). Notes and errors
// go to stderr in every case.
func progressWriter(cmd *cobra.Command) io.Writer {
	w := cmd.ErrOrStderr()
	quiet, _ := cmd.Flags().GetBool("quiet")
	lines, _ := cmd.Flags().GetBool("progress")
	switch {
	case quiet:
		return progress.Quiet(w)
	case lines:
		return progress.Lines(w)
	}
	return w
}

// timeoutAlias makes --time-budget (certifying commands) and --time-limit
// (solve), the older names of the wall-clock limit, other names of
// --timeout.
func timeoutAlias(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	switch name {
	case "time-budget", "time-limit":
		name = "timeout"
	}
	return pflag.NormalizedName(name)
}

// exactArgs is cobra.ExactArgs with a usage-error result.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		fields := strings.Fields(cmd.Use)[1:]
		want := strings.Join(fields[:min(n, len(fields))], " ")
		if n == 0 {
			want = "nothing"
		}
		return usagef("%s needs %s (%s), got %d; see nnbound %s --help", cmd.Name(), want, numtext.Count(n, "argument"), len(args), cmd.Name())
	}
}

// newVersionCmd returns "nnbound version", which prints the module version
// the binary was built from (with --json: {"version": "..."}).
func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of nnbound",
		Args:  exactArgs(0),
		// It prints one line: nothing for a signal to stop, so it opts
		// out of the root's signal handling (runContext).
		PersistentPreRun: func(*cobra.Command, []string) {},
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := report.Version()
			if asJSON {
				return report.WriteJSON(cmd.OutOrStdout(), report.VersionRecord{Version: v})
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "nnbound %s\n", v)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"version": "..."}`)
	return cmd
}
