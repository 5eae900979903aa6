package main

import "github.com/spf13/cobra"

func newQuantiseCmd() *cobra.Command {
	return notYet("quantise", "Quantise a network (and certify the error)")
}
