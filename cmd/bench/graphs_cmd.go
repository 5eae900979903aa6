package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/duration"
	"github.com/nnbound/nnbound/internal/suite"
)

// newGraphsCmd returns the benchmark of graph networks.
func newGraphsCmd() *cobra.Command {
	o := suite.DefaultGraphsOptions()
	cmd := &cobra.Command{
		Use:   "graphs",
		Short: "Certify graph networks (residual CNNs) against their int8 and fixed-point copies",
		Long: `For each pair (--pairs; the models of --dir, by default testdata/graphs, run
from the repository root) certify ||f(x) - g(x)||_2 over L-inf balls around
the first --balls inputs of the pair's test data (digits: radius 2/255,
CIFAR: 1/255, clipped to [0, 1]), as

    nnbound compare MODEL.onnx COPY.onnx --lo ... --hi ...

does with its defaults, and print per ball the bound, the largest error
the search found, their ratio, the pieces and the seconds; with --verify D
also verify at twice and half the error found, each stopped after D. Then
per pair the median ratio, and the process's CPU time and peak memory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return suite.Graphs(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Dir, "dir", o.Dir, "folder of the models and their JSON files")
	fs.StringSliceVar(&o.Pairs, "pairs", o.Pairs, "pairs to run: digits-ort, digits-torch, digits-fb8, cifar-fb8, cifar-ort, cifar-trained-fb8, cifar-trained-ort")
	fs.IntVar(&o.Balls, "balls", o.Balls, "balls per pair")
	duration.Var(fs, &o.Measure.Verify, "verify", "also verify at 2x and 0.5x the error found, each stopped after this long (0: no verify)")
	return cmd
}
