package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/gzfile"
	"github.com/nnbound/nnbound/internal/interrupt"
	"github.com/nnbound/nnbound/internal/suite"
)

// run executes the bench command with args and returns the exit code. A
// suite runs under interrupt.Context, as nnbound's commands do: the first
// SIGINT or SIGTERM cancels it, the second ends the process.
func run(args []string, stdout, stderr io.Writer) int {
	gzfile.SetWarnings(stderr)
	defer gzfile.SetWarnings(nil)
	root := &cobra.Command{
		Use:           "bench",
		Short:         "Benchmark nnbound's SDP solver against CSDP, SDPA and DSDP",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return suite.UsageError{Err: err} })
	root.AddCommand(newSDPLIBCmd(), newCertifyCmd(), newACASXuCmd(), newCNNCmd(), newWideCmd(), newVerifyCmd(), newInt8Cmd(), newDefaultsCmd(), newControllersCmd(),
		newRootSDPCmd(), newGraphsCmd(), newViTCmd(), newInt8JointCmd())
	stop := func() {}
	defer func() { stop() }()
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		var ctx context.Context
		ctx, stop = interrupt.Context(cmd.Context())
		cmd.SetContext(ctx)
	}
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	switch {
	case err == nil:
		return 0
	case errors.Is(err, suite.ErrChecksFailed):
		return 1
	}
	fmt.Fprintf(stderr, "bench: %v\n", err)
	var ue suite.UsageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") {
		return 2
	}
	return 1
}
