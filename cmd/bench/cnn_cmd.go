package main

import (
	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/internal/suite"
)

// newCNNCmd returns the CNN benchmark: a convolutional network against its
// fixed-point copies over L-inf balls around test images.
func newCNNCmd() *cobra.Command {
	o := suite.DefaultCNNOptions()
	cmd := &cobra.Command{
		Use:   "cnn",
		Short: "Certify a CNN against its fixed-point copies around test images",
		Long: `Read a convolutional ONNX model (by default the digits CNN of
nn/onnx/testdata/cnn, input 1x8x8 with pixels/16 in [0, 1]; run from the
repository root; --model nn/onnx/testdata/cnn/cnn_mnist28/cnn_mnist28.onnx
is the 28x28 one, whose convolutions are structured layers), quantise its weights and biases to each --frac-bits
(truncation), and for each of the first --images images of the model's
samples.json certify max_j |f_j(x) - q_j(x)| (the largest change of a logit) for
every x in the L-inf ball of --radius around the image, intersected with
[0, 1] (the same input for both networks). The bound is bound propagation
over the pair (bounds.Pair with --bounds, as certify's MethodInterval);
the SDP of a pair of this size is not attempted (its order is far beyond
certify.MaxBudgetOrder, and it does not read structured layers). The error found is
search.MaxError's, with --evals random points and short local searches
(a budget of evaluations, not of time).

Prints one row per width and image (bound, found, ratio, time) and the
peak resident memory of the process. Times are wall-clock.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return suite.CNN(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Model, "model", o.Model, "the ONNX model")
	fl.StringVar(&o.Samples, "samples", "", "the samples.json holding the images (default: next to the model)")
	fl.Float64Var(&o.Radius, "radius", o.Radius, "radius of the L-inf ball, in the model's input scale")
	fl.IntSliceVar(&o.FracBits, "frac-bits", o.FracBits, "fractional bits of the quantised copies")
	fl.IntVar(&o.Images, "images", o.Images, "number of images")
	enumVar(fl, &o.Bounds, "bounds", boundsMethods, "bound propagation: interval, symbolic or optimised")
	fl.IntVar(&o.Search.Samples, "evals", o.Search.Samples, "random points of the error search")
	return cmd
}
