package main

import (
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/numtext"
	"github.com/nnbound/nnbound/report"
)

func newEvalCmd() *cobra.Command {
	var (
		mf      modelFlags
		input   string
		jsonOut bool
		single  bool
	)
	cmd := &cobra.Command{
		Use:   "eval MODEL --input x1,x2,...",
		Short: "Evaluate a network on an input",
		Long: `Eval reads a network and prints its outputs at one input, in float64, each
number in the shortest form that reads back to the same float64. With
--json it prints {"output":[...]} instead.

An NNet file takes raw inputs and gives raw outputs (clipping,
normalisation and de-normalisation included); with --core it takes
normalised inputs and gives normalised outputs.

An int8 (QDQ) model is evaluated by the ONNX reference semantics of its
QuantizeLinear and DequantizeLinear nodes, in float64; with --float32 the
whole network is evaluated in float32 arithmetic instead, as a float32
runtime computes it by the same semantics: a chain of dense layers sums
each pre-activation in float32 in input order, any other graph rounds
each operation's result once to float32.`,
		Example: `  nnbound eval nn/onnx/testdata/torch/sin3x_relu/sin3x_relu.onnx --input 0.5
  nnbound eval model.onnx --input 0.1,0.2,0.3 --float32 --json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("input") {
				return usagef("eval needs --input x1,x2,...")
			}
			x, err := parseInput(input)
			if err != nil {
				return err
			}
			m, err := mf.loadGraph(args[0])
			if err != nil {
				return err
			}
			if len(x) != m.Graph.InputSize() {
				return usagef("--input has %s but %s takes %s", numtext.Count(len(x), "value"), args[0], numtext.Count(m.Graph.InputSize(), "input"))
			}
			eval := m.Graph.Eval
			switch {
			case single && m.Net != nil && !m.Net.Structured():
				eval = m.Net.EvalFloat32
			case single:
				eval = m.Graph.EvalFloat32
			}
			y, err := eval(x)
			if err != nil {
				return err
			}
			return report.WriteOutput(cmd.OutOrStdout(), y, jsonOut)
		},
	}
	mf.register(cmd.Flags())
	cmd.Flags().StringVar(&input, "input", "", "the input, `x1,x2,...` (one value per network input)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, `print {"output":[...]} instead of text`)
	cmd.Flags().BoolVar(&single, "float32", false, "evaluate in float32 arithmetic (weights, inputs and quantisers rounded to float32)")
	return cmd
}

// parseInput parses the comma-separated finite numbers of --input.
func parseInput(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	x := make([]float64, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		v, err := strconv.ParseFloat(p, 64)
		switch {
		case err != nil && p == "":
			return nil, usagef("--input: value %d is missing", i+1)
		case err != nil:
			return nil, usagef("--input: value %d, %q, is not a number", i+1, p)
		case math.IsNaN(v) || math.IsInf(v, 0):
			return nil, usagef("--input: value %d is %v; inputs must be finite", i+1, v)
		}
		x[i] = v
	}
	return x, nil
}
