package main

import "github.com/spf13/cobra"

func newExportCmd() *cobra.Command {
	return notYet("export", "Write the certificate SDP for other solvers")
}
