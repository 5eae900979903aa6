package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/gzfile"
)

// usageError marks an error in the command line (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// errChecksFailed is returned when the table was printed but some check
// failed; run maps it to exit code 1 without printing it again.
var errChecksFailed = errors.New("some checks failed")

// run executes the bench command with args and returns the exit code.
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newSDPLIBCmd(), newCertifyCmd(), newACASXuCmd(), newCNNCmd(), newWideCmd(), newVerifyCmd(), newInt8Cmd(),
		newRootSDPCmd(), newGraphsCmd(), newViTCmd())
	root.SetArgs(args)
	err := root.Execute()
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errChecksFailed):
		return 1
	}
	fmt.Fprintf(stderr, "bench: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") {
		return 2
	}
	return 1
}
