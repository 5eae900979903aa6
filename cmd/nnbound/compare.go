package main

import "github.com/spf13/cobra"

func newCompareCmd() *cobra.Command {
	return notYet("compare", "Certify the output difference of two networks")
}
