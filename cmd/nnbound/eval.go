package main

import "github.com/spf13/cobra"

func newEvalCmd() *cobra.Command {
	return notYet("eval", "Evaluate a network on an input")
}
