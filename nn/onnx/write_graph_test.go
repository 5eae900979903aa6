package onnx

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

// TestWriteGraphRoundTrip writes the graphs of chains (a CNN, int8 QDQ
// MLPs) and checks that reading the file back gives the same function.
func TestWriteGraphRoundTrip(t *testing.T) {
	paths := []string{
		filepath.Join("testdata", "cnn", "cnn_digits", "cnn_digits.onnx"),
		filepath.Join("testdata", "qdq", "digits_relu", "digits_relu_int8_perchannel.onnx"),
		filepath.Join("testdata", "qdq", "controller_relu", "controller_relu_int8_pertensor.onnx"),
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			net, _, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			g := net.Graph()
			checkSameFunction(t, g, writeGraphBack(t, g))
		})
	}
}

// checkSameFunction compares two graphs at inputs spread over [0, 1].
func checkSameFunction(t *testing.T, want, got *nn.Graph) {
	t.Helper()
	n := want.InputSize()
	for s := range 5 {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64((i*7+s*13)%17) / 16
		}
		a, err := want.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		b, err := got.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Fatalf("input %d: read back %v, written %v", s, b, a)
		}
	}
}

// TestWriteGraphOfRead writes graphs that ReadGraph read (int8 QDQ models
// with their integer schemes, DAGs) and checks that ReadGraph of the file
// gives the same function.
func TestWriteGraphOfRead(t *testing.T) {
	paths := []string{
		filepath.Join("testdata", "qdq", "digits_relu", "digits_relu_int8_perchannel.onnx"),
		filepath.Join("testdata", "qdq", "controller_relu", "controller_relu_int8_pertensor.onnx"),
		filepath.Join("testdata", "qdq", "ort_residual", "ort_residual.onnx"),
		filepath.Join("testdata", "cnn", "cnn_residual", "cnn_residual.onnx"),
		filepath.Join("testdata", "dag", "inception.onnx"),
		filepath.Join("testdata", "dag", "qdq_residual.onnx"),
		filepath.Join("..", "..", "testdata", "graphs", "vit_digits.onnx"),
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			g, _, err := ReadGraph(path)
			if err != nil {
				t.Fatal(err)
			}
			checkSameFunction(t, g, writeGraphBack(t, g))
		})
	}
}

// writeGraphBack writes g with WriteGraph and reads the file back with
// DecodeGraph.
func writeGraphBack(t *testing.T, g *nn.Graph) *nn.Graph {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteGraph(&buf, g); err != nil {
		t.Fatal(err)
	}
	back, _, err := DecodeGraph(buf.Bytes(), "written")
	if err != nil {
		t.Fatal(err)
	}
	return back
}
