package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/nn"
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
core_sizes, core_parameters, layers [{in, out, parameters, activation}]}.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := mf.load(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return report.WriteJSON(cmd.OutOrStdout(), modelfile.Describe(m.Net, m.Info))
			}
			return writeInspect(cmd.OutOrStdout(), m)
		},
	}
	mf.register(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the description as one JSON object")
	return cmd
}

// writeInspect prints the description of m.
func writeInspect(w io.Writer, m *model) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	net, info := m.Net, m.Info
	fmt.Fprintf(tw, "file:\t%s\n", info.Path)
	fmt.Fprintf(tw, "size:\t%d bytes\n", info.Size)
	if info.Sniffed {
		fmt.Fprintf(tw, "note:\tformat recognised from the content, not the extension\n")
	}
	for _, line := range strings.Split(strings.TrimRight(info.Summary, "\n"), "\n") {
		key, value, _ := strings.Cut(line, ":")
		fmt.Fprintf(tw, "%s:\t%s\n", key, strings.TrimSpace(value))
	}
	fmt.Fprintf(tw, "inputs:\t%d\n", net.InputSize())
	fmt.Fprintf(tw, "outputs:\t%d\n", net.OutputSize())
	fmt.Fprintf(tw, "sizes:\t%s\n", nn.FormatSizes(net.Sizes()))
	fmt.Fprintf(tw, "parameters:\t%d\n", net.NumParams())
	if net.Input != nil {
		fmt.Fprintf(tw, "input quantiser:\t%v\n", net.Input)
	}
	if info.Core != net {
		fmt.Fprintf(tw, "core network:\t%s, %d parameters (what quantise and prune compress)\n", nn.FormatSizes(info.Core.Sizes()), info.Core.NumParams())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeLayers(w, net)
}

// writeLayers prints one line per layer.
func writeLayers(w io.Writer, net *nn.Network) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "layer\tin\tout\tparameters\t  activation\n")
	for k, l := range net.Layers {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t  %s\n", k, l.In(), l.Out(), l.Out()*(l.In()+1), l.Act.Describe())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for k, l := range net.Layers {
		if s := l.Scheme(); s != "" {
			fmt.Fprintf(w, "  layer %d quantisation: %s\n", k, s)
		}
	}
	return nil
}
