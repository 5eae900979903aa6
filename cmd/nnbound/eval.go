package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
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
runtime computes it by the same semantics.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("input") {
				return usagef("eval needs --input x1,x2,...")
			}
			x, err := parseInput(input)
			if err != nil {
				return err
			}
			m, err := mf.load(args[0])
			if err != nil {
				return err
			}
			if len(x) != m.Net.InputSize() {
				return usagef("--input has %d values but %s takes %d inputs", len(x), args[0], m.Net.InputSize())
			}
			eval := m.Net.Eval
			if single {
				eval = m.Net.EvalFloat32
			}
			y, err := eval(x)
			if err != nil {
				return err
			}
			return writeOutput(cmd.OutOrStdout(), y, jsonOut)
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

// writeOutput prints y as one line of numbers, or as {"output":[...]}.
// Outputs are finite for finite inputs except on overflow, which JSON
// cannot hold: they are then an error.
func writeOutput(w io.Writer, y []float64, jsonOut bool) error {
	if jsonOut {
		for i, v := range y {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("output %d is %v, which JSON cannot hold", i+1, v)
			}
		}
		data, err := json.Marshal(struct {
			Output []float64 `json:"output"`
		}{y})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	}
	parts := make([]string, len(y))
	for i, v := range y {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	_, err := fmt.Fprintln(w, strings.Join(parts, " "))
	return err
}
