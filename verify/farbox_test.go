package verify

import (
	"context"
	"testing"

	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/spec"
)

// TestDecideFarBox checks that a box near the float64 limit, where a
// piece can hold no finite difference found, ends with an answer instead
// of a panic (the split took the gradient at a worst point never found).
func TestDecideFarBox(t *testing.T) {
	dir := "../nn/onnx/testdata/qdq/sin3x_relu/"
	f, _, err := onnx.Read(dir + "sin3x_relu.onnx")
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := onnx.Read(dir + "sin3x_relu_int8_perchannel.onnx")
	if err != nil {
		t.Fatal(err)
	}
	in := spec.Inputs{Box: spec.Box{Lo: []float64{1e308}, Hi: []float64{1.7e308}}}
	opts := DefaultOptions()
	opts.MaxNodes = 20
	res, err := Decide(context.Background(), f, g, in, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{0.1}}, &opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status == Holds {
		t.Fatalf("verdict %v on a box with no finite bound", res.Status)
	}
}
