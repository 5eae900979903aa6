package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/report"
)

func newInspectCmd() *cobra.Command {
	var mf modelFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect MODEL",
		Short: "Describe a network file",
		Long: `Inspect reads a network (ONNX .onnx, NNet .nnet or nnbound JSON .json; a
file with another extension is recognised by its content) and prints its
format details, input and output sizes, parameter count and layers, as
nnbound sees them.

An NNet file is read in raw units: its input clipping and normalisation
and its output de-normalisation are part of the network (the clipping as
extra layers). With --core the normalised core network is read instead.

With --json it prints one object: {file, bytes, format, sniffed, details
(the format's key: value lines), inputs, outputs, sizes, parameters,
core_sizes, core_parameters, layers [{in, out, parameters, activation}]}.

A computation graph that is not a chain of layers (residual Add, Concat,
MaxPool, ...) is printed as its nodes instead ("nodes" [{op, name,
inputs, shape, parameters}] in --json).`,
		Example: `  nnbound inspect testdata/graphs/digits_rescnn_int8_ort.onnx
  nnbound inspect ACASXU_run2a_1_1_batch_2000.nnet`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := mf.loadGraph(args[0])
			if err != nil {
				return err
			}
			d := modelfile.DescribeGraph(m.Graph, m.Info)
			if m.Net != nil && !modelfile.Structured(m.Graph) { // a convolution's parameters counted once
				d = modelfile.Describe(m.Net, m.Info)
			}
			if asJSON {
				return report.WriteJSON(cmd.OutOrStdout(), d)
			}
			return d.WriteText(cmd.OutOrStdout())
		},
	}
	mf.register(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the description as one JSON object")
	return cmd
}
