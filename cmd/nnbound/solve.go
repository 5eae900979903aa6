package main

import "github.com/spf13/cobra"

func newSolveCmd() *cobra.Command {
	return notYet("solve", "Solve an SDP in SDPA sparse format")
}
