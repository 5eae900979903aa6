package onnx_test

import (
	"bytes"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
)

// A network written with Write reads back with the same parameters; Info
// describes the file.
func Example() {
	net := &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(2, 1, []float64{1, -1}), B: []float64{0, 0.5}, Act: nn.Activation{Kind: nn.ReLU}},
		{W: mat.NewDense(1, 2, []float64{2, 3}), B: []float64{-1}, Act: nn.Activation{Kind: nn.Identity}},
	}}
	var buf bytes.Buffer
	if err := onnx.Write(&buf, net); err != nil {
		fmt.Println(err)
		return
	}
	back, info, err := onnx.Decode(buf.Bytes(), "example.onnx")
	if err != nil {
		fmt.Println(err)
		return
	}
	y, _ := back.Eval([]float64{0.25})
	fmt.Print(info)
	fmt.Println("f(0.25) =", y[0])
	// Output:
	// format:       ONNX, IR version 8, opset 13
	// producer:     nnbound
	// input:        x DOUBLE [N,1]
	// output:       y DOUBLE [N,1]
	// initializers: 4 (DOUBLE)
	// nodes:        3 (Gemm,Relu,Gemm)
	// f(0.25) = 0.25
}
