package suite

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/quantise"
)

// cnnModel is the digits CNN of nn/onnx/testdata/cnn.
var cnnModel = filepath.Join("..", "..", "nn", "onnx", "testdata", "cnn", "cnn_digits", "cnn_digits.onnx")

// cnn28Model is the 28x28 CNN, whose convolutions are structured layers.
var cnn28Model = filepath.Join("..", "..", "nn", "onnx", "testdata", "cnn", "cnn_mnist28", "cnn_mnist28.onnx")

// TestCNNBoundSound checks the bound of one row of bench cnn against the
// error at random corners of the box and at random points: the 8x8 CNN
// (dense lowered layers) by symbolic propagation, the 28x28 one
// (structured layers) by interval propagation and, unless -short, by
// symbolic propagation.
func TestCNNBoundSound(t *testing.T) {
	checkCNNBound(t, cnnModel, bounds.MethodSymbolic)
	checkCNNBound(t, cnn28Model, bounds.MethodInterval)
	if !testing.Short() {
		checkCNNBound(t, cnn28Model, bounds.MethodSymbolic)
	}
}

// checkCNNBound checks bench cnn's bound for model, quantised to 4
// fractional bits, around its first image.
func checkCNNBound(t *testing.T, model string, method bounds.Method) {
	t.Helper()
	net, _, err := onnx.Read(model)
	if err != nil {
		t.Fatal(err)
	}
	images, err := cnnImages(filepath.Join(filepath.Dir(model), "samples.json"), 1)
	if err != nil {
		t.Fatal(err)
	}
	q, err := quantise.Network(net, quantise.Options{Weights: quantise.Format{FracBits: 4}, Biases: quantise.Format{FracBits: 4}})
	if err != nil {
		t.Fatal(err)
	}
	box := ball(images[0], 2.0/255)
	bound, err := cnnBound(net, q, box, method)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, box.Dim())
	for k := range 300 {
		for i := range x {
			u := rng.Float64()
			if k%2 == 0 { // a corner
				u = math.Round(u)
			}
			x[i] = box.Lo[i] + u*(box.Hi[i]-box.Lo[i])
		}
		y1, _ := net.Eval(x)
		y2, _ := q.Eval(x)
		for j := range y1 {
			d := math.Abs(y1[j] - y2[j])
			if d > bound {
				t.Fatalf("error %v at a point of the box exceeds the bound %v", d, bound)
			}
			worst = max(worst, d)
		}
	}
	t.Logf("%s, %v: bound %.4g, largest sampled error %.4g", filepath.Base(model), method, bound, worst)
}
