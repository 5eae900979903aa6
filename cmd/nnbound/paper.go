package main

import "github.com/spf13/cobra"

func newPaperCmd() *cobra.Command {
	return notYet("paper", "Reproduce the experiments of the paper")
}
