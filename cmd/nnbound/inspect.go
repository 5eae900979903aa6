package main

import "github.com/spf13/cobra"

func newInspectCmd() *cobra.Command {
	return notYet("inspect", "Describe a network file")
}
