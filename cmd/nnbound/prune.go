package main

import "github.com/spf13/cobra"

func newPruneCmd() *cobra.Command {
	return notYet("prune", "Prune a network (and certify the error)")
}
