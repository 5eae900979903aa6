package main

import "github.com/spf13/cobra"

func newSweepCmd() *cobra.Command {
	return notYet("sweep", "Certified error bound for each fractional bit width")
}
