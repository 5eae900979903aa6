package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// cnnFlags are the flags of bench cnn.
type cnnFlags struct {
	model    string
	samples  string
	radius   float64
	fracBits []int
	images   int
	bounds   string
	evals    int
}

// newCNNCmd returns the CNN benchmark: a convolutional network against its
// fixed-point copies over L-inf balls around test images.
func newCNNCmd() *cobra.Command {
	f := cnnFlags{model: filepath.Join("nn", "onnx", "testdata", "cnn", "cnn_digits", "cnn_digits.onnx"),
		radius: 2.0 / 255, fracBits: []int{8, 4}, images: 10, bounds: "symbolic", evals: 2000}
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
			return runCNN(cmd.Context(), cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", f.model, "the ONNX model")
	fl.StringVar(&f.samples, "samples", "", "the samples.json holding the images (default: next to the model)")
	fl.Float64Var(&f.radius, "radius", f.radius, "radius of the L-inf ball, in the model's input scale")
	fl.IntSliceVar(&f.fracBits, "frac-bits", f.fracBits, "fractional bits of the quantised copies")
	fl.IntVar(&f.images, "images", f.images, "number of images")
	fl.StringVar(&f.bounds, "bounds", f.bounds, "bound propagation: interval, symbolic or optimised")
	fl.IntVar(&f.evals, "evals", f.evals, "random points of the error search")
	return cmd
}

// cnnImages returns the first n inputs of a samples.json file, flattened.
func cnnImages(path string, n int) ([][]float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s struct{ Inputs []any }
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(s.Inputs) < n {
		return nil, fmt.Errorf("%s has %d inputs, want %d", path, len(s.Inputs), n)
	}
	out := make([][]float64, n)
	for i := range out {
		out[i] = shared.Flatten(s.Inputs[i])
	}
	return out, nil
}

// runCNN runs the benchmark and prints its table to w.
func runCNN(ctx context.Context, w io.Writer, f cnnFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	resetPeakRSS()
	method, err := bounds.ParseMethod(f.bounds)
	if err != nil {
		return usageError{err}
	}
	net, info, err := onnx.Read(f.model)
	if err != nil {
		return err
	}
	if f.samples == "" {
		f.samples = filepath.Join(filepath.Dir(f.model), "samples.json")
	}
	images, err := cnnImages(f.samples, f.images)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "model:    %s, %s (%s)\n", f.model, sizesOf(net), strings.Join(info.Ops, ","))
	fmt.Fprintf(w, "lowered:  %s\n", strings.Join(info.Lowered, "; "))
	fmt.Fprintf(w, "inputs:   L-inf ball of radius %.6g around each of %d test images, within [0, 1]; x2 = x1\n",
		f.radius, len(images))
	fmt.Fprintf(w, "bound:    max_j |f_j(x) - q_j(x)| by bound propagation (%s); found: search.MaxError, %d random points\n\n",
		method, f.evals)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "FB\timage\tbound\tfound\tratio\ttime\t")
	for _, fb := range f.fracBits {
		q, err := quantise.Network(net, quantise.Options{Weights: quantise.Format{FracBits: fb},
			Biases: quantise.Format{FracBits: fb}})
		if err != nil {
			return err
		}
		for i, x := range images {
			start := time.Now()
			bound, found, err := cnnRow(ctx, net, q, ball(x, f.radius), method, f.evals)
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "%d\t%d\t%.4g\t%.4g\t%.3g\t%.2f s\t\n", fb, i, bound, found,
				bound/found, time.Since(start).Seconds())
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\npeak resident memory: %.0f MiB (VmHWM)\n", peakRSS())
	return nil
}

// cnnRow returns the bound on max_j |f_j(x) - q_j(x)| over box (the same
// x for both) by bound propagation with method (cnnBound), and the
// largest error search.MaxError finds with evals random points.
func cnnRow(ctx context.Context, f, q *nn.Network, box spec.Box, method bounds.Method, evals int) (bound, found float64, err error) {
	if bound, err = cnnBound(f, q, box, method); err != nil {
		return 0, 0, err
	}
	res, err := search.MaxError(ctx, f, q, spec.Inputs{Box: box, Pairing: spec.SameInput},
		spec.Quantity{Norm: spec.NormInf}, cnnSearch(evals))
	if err != nil {
		return 0, 0, err
	}
	return bound, res.Error, nil
}

// cnnBound returns a bound on max_j |f_j(x) - q_j(x)| over box by
// bound propagation with method: the largest magnitude of the enclosures
// of the output differences.
func cnnBound(f, q *nn.Network, box spec.Box, method bounds.Method) (float64, error) {
	pb, err := bounds.Pair(f, q, spec.Inputs{Box: box, Pairing: spec.SameInput}, bounds.Options{Method: method})
	if err != nil {
		return 0, err
	}
	bound := 0.0
	for _, iv := range pb.Output {
		bound = max(bound, iv.Mag())
	}
	return bound, nil
}

// cnnSearch returns the options of the error search of bench cnn: evals
// random points and short local searches (the default ones take 100,000
// evaluations on 64 inputs).
func cnnSearch(evals int) search.Options {
	o := search.DefaultOptions()
	o.Samples = evals
	o.Restarts, o.Iters, o.ZoomStarts, o.ZoomRounds, o.ZoomSamples = 2, 20, 2, 6, 100
	return o
}

// ball returns the L-inf ball of radius r around x, within [0, 1].
func ball(x []float64, r float64) spec.Box {
	b := spec.Box{Lo: slices.Clone(x), Hi: slices.Clone(x)}
	for i, v := range x {
		b.Lo[i], b.Hi[i] = math.Max(0, v-r), math.Min(1, v+r)
	}
	return b
}

// sizesOf returns the layer sizes of n as "64-512-256-10".
func sizesOf(n *nn.Network) string {
	parts := make([]string, 0, len(n.Layers)+1)
	for _, s := range n.Sizes() {
		parts = append(parts, strconv.Itoa(s))
	}
	return strings.Join(parts, "-")
}
