package main

import "github.com/spf13/cobra"

func newDemoCmd() *cobra.Command {
	return notYet("demo", "Certify a quantised network end to end on an embedded example")
}
