package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/suite"
)

// newInt8JointCmd returns the int8 joint-output benchmark: the 2-norm of
// a float model against its int8 copies, with and without the SDP's
// int8 quadratic constraints.
func newInt8JointCmd() *cobra.Command {
	o := suite.DefaultInt8JointOptions()
	cmd := &cobra.Command{
		Use:   "int8joint",
		Short: "The 2-norm of a float model against its int8 copies, with and without the int8 SDP",
		Long: `For the model --model of --dir (by default digits_relu of
nn/onnx/testdata/qdq, the PyTorch int8 exports; run from the repository
root) and each scheme, certify ||f(x) - f_q(x)||_2 between MODEL.onnx and
MODEL_int8_SCHEME.onnx on L-inf balls of radius --radius around the first
--balls images of test_set.json (clipped to [0, 1]) and on the box of
samples.json, as

    nnbound compare MODEL.onnx MODEL_int8_SCHEME.onnx --pairing same --lo ... --hi ...

does with its defaults, twice: before, without the SDP's int8 quadratic
constraints (bound propagation with input splitting), and after, with
them. Prints one row per set: both bounds, the root SDP's bound, the
largest error found (the larger of the two runs'), both ratios, the CPU
and wall seconds of the second run and whether its time budget ran out,
and a lower bound on the largest error of the model the int8 quadratic
constraints describe (every rounding a free |e| <= s/2, found by sweeps
over the roundings' signs and the inputs' ends): no bound from that
model can be below it; then the median ratio over the balls per scheme.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return suite.Int8Joint(cmd.Context(), cmd.OutOrStdout(), &o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Dir, "dir", o.Dir, "the folder of the QDQ models (one subfolder per model)")
	fl.StringVar(&o.Model, "model", o.Model, "the model (a subfolder of --dir with test_set.json and samples.json)")
	fl.StringSliceVar(&o.Schemes, "schemes", o.Schemes, "the int8 schemes (file suffixes)")
	fl.IntVar(&o.Balls, "balls", o.Balls, "L-inf balls around the first N test images")
	fl.Float64Var(&o.Radius, "radius", o.Radius, "the balls' radius")
	fl.BoolVar(&o.Box, "box", o.Box, "a row for the whole box of samples.json")
	return cmd
}
