package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// CNNOptions are the options of the CNN suite (bench cnn).
type CNNOptions struct {
	Model    string // the ONNX model
	Samples  string // samples.json holding the images ("": next to the model)
	Radius   float64
	FracBits []int // fractional bits of the quantised copies
	Images   int
	Bounds   bounds.Method
	// Search is the error search; Search.Samples is its random points.
	Search search.Options
}

// DefaultCNNOptions returns the defaults of bench cnn: the digits CNN,
// radius 2/255, 8 and 4 fractional bits, 10 images, symbolic bounds and a
// search of 2,000 random points with short local searches (the default
// ones take 100,000 evaluations on 64 inputs).
func DefaultCNNOptions() CNNOptions {
	o := CNNOptions{Model: filepath.Join("nn", "onnx", "testdata", "cnn", "cnn_digits", "cnn_digits.onnx"),
		Radius: 2.0 / 255, FracBits: []int{8, 4}, Images: 10, Bounds: bounds.MethodSymbolic, Search: search.DefaultOptions()}
	o.Search.Samples = 2000
	o.Search.Restarts, o.Search.Iters, o.Search.ZoomStarts, o.Search.ZoomRounds, o.Search.ZoomSamples = 2, 20, 2, 6, 100
	return o
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

// CNN certifies the CNN of o against its fixed-point copies around the
// test images and prints the table to w.
func CNN(ctx context.Context, w io.Writer, o CNNOptions) error {
	resetPeakRSS()
	method := o.Bounds
	net, info, err := onnx.Read(o.Model)
	if err != nil {
		return err
	}
	if o.Samples == "" {
		o.Samples = filepath.Join(filepath.Dir(o.Model), "samples.json")
	}
	images, err := cnnImages(o.Samples, o.Images)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "model:    %s, %s (%s)\n", o.Model, sizesOf(net), strings.Join(info.Ops, ","))
	fmt.Fprintf(w, "lowered:  %s\n", strings.Join(info.Lowered, "; "))
	fmt.Fprintf(w, "inputs:   L-inf ball of radius %.6g around each of %d test images, within [0, 1]; x2 = x1\n",
		o.Radius, len(images))
	fmt.Fprintf(w, "bound:    max_j |f_j(x) - q_j(x)| by bound propagation (%s); found: search.MaxError, %d random points\n\n",
		method, o.Search.Samples)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "FB\timage\tbound\tfound\tratio\ttime\t")
	for _, fb := range o.FracBits {
		q, err := quantise.Network(net, quantise.Options{Weights: quantise.Format{FracBits: fb},
			Biases: quantise.Format{FracBits: fb}})
		if err != nil {
			return err
		}
		for i, x := range images {
			start := time.Now()
			bound, found, err := cnnRow(ctx, net, q, ball(x, o.Radius), method, o.Search)
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
// largest error search.MaxError finds with so.
func cnnRow(ctx context.Context, f, q *nn.Network, box spec.Box, method bounds.Method, so search.Options) (bound, found float64, err error) {
	if bound, err = cnnBound(f, q, box, method); err != nil {
		return 0, 0, err
	}
	res, err := search.MaxError(ctx, f, q, spec.Inputs{Box: box, Pairing: spec.SameInput},
		spec.Quantity{Norm: spec.NormInf}, so)
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

// ball returns the L-inf ball of radius r around x, within [0, 1].
func ball(x []float64, r float64) spec.Box { return spec.Ball(x, r, 0, 1) }

// sizesOf returns the layer sizes of n as "64-512-256-10".
func sizesOf(n *nn.Network) string {
	parts := make([]string, 0, len(n.Layers)+1)
	for _, s := range n.Sizes() {
		parts = append(parts, strconv.Itoa(s))
	}
	return strings.Join(parts, "-")
}
