package onnx

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

// mnist28 is the 28x28 CNN of testdata/cnn, whose convolutions are too
// large to lower.
var mnist28 = filepath.Join("testdata", "cnn", "cnn_mnist28", "cnn_mnist28.onnx")

// TestStructuredRead checks that the 28x28 CNN's convolutions are read
// as structured layers and that writing it back gives Conv nodes that read
// back to the same network, bit for bit.
func TestStructuredRead(t *testing.T) {
	net, info, err := Read(mnist28)
	if err != nil {
		t.Fatal(err)
	}
	if net.Layers[0].Conv == nil || net.Layers[1].Conv == nil || net.Layers[2].Conv != nil {
		t.Fatalf("layers 0 and 1 should be structured, layer 2 dense")
	}
	if want := "Conv 8x28x28 -> 16x14x14 (structured, 1152 kernel values)"; len(info.Lowered) != 2 || info.Lowered[1] != want {
		t.Errorf("Lowered = %q, want [..., %q]", info.Lowered, want)
	}
	got, winfo, data := roundTrip(t, net)
	requireIdentical(t, got, net)
	if !strings.Contains(strings.Join(winfo.Ops, ","), "Reshape,Conv,Flatten,Relu") {
		t.Errorf("written ops %v", winfo.Ops)
	}
	if len(data) > 2*(len(net.Layers[0].Conv.Kernel)+len(net.Layers[1].Conv.Kernel)+31370+6272+3136)*8 {
		t.Errorf("written file of %d bytes: the convolutions were not written as kernels", len(data))
	}
}

// TestStructuredWriteBias writes a structured layer whose bias is not
// constant per channel (an Add after the Conv) and one that is, with
// padding, strides, dilations and groups, and reads them back.
func TestStructuredWriteBias(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := &nn.Conv2D{InC: 4, InH: 40, InW: 41, OutC: 8, OutH: 20, OutW: 20, KH: 3, KW: 2, Stride: [2]int{2, 2},
		Dil: [2]int{1, 2}, Pad: [2]int{1, 0}, Groups: 2, Kernel: make([]float64, 8*2*3*2)}
	for i := range c.Kernel {
		c.Kernel[i] = rng.NormFloat64()
	}
	l1, err := nn.ConvLayer(c, []float64{1, 2, 3, 4, 5, 6, 7, 8}, nn.Activation{Kind: nn.ReLU})
	if err != nil {
		t.Fatal(err)
	}
	l2, err := nn.ConvLayer(c.WithKernel(c.Kernel), nil, nn.Activation{Kind: nn.Identity})
	if err != nil {
		t.Fatal(err)
	}
	for i := range l2.B {
		l2.B[i] = rng.NormFloat64()
	}
	for _, l := range []nn.Layer{l1, l2} {
		net := &nn.Network{Layers: []nn.Layer{l}}
		got, _, _ := roundTrip(t, net)
		requireIdentical(t, got, net)
	}
}

// TestStructuredQuantisedNotWritable checks that a structured network with
// a quantiser, which the QDQ writer cannot store, is an error.
func TestStructuredQuantisedNotWritable(t *testing.T) {
	net, _, err := Read(mnist28)
	if err != nil {
		t.Fatal(err)
	}
	net.Input = &nn.Quantiser{Scale: []float64{1.0 / 256}, Zero: []int64{0}, Lo: -128, Hi: 127}
	var buf strings.Builder
	if err := Write(&buf, net); !errors.Is(err, ErrNotWritable) {
		t.Errorf("got %v, want ErrNotWritable", err)
	}
}
