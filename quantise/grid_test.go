package quantise

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

func TestGridFracBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	net := &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(3, 2, nil), B: make([]float64, 3), Act: nn.Activation{Kind: nn.ReLU}},
		{W: mat.NewDense(1, 3, nil), B: make([]float64, 1), Act: nn.Activation{Kind: nn.Identity}},
	}}
	for _, l := range net.Layers {
		d := l.W.RawMatrix().Data
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		for i := range l.B {
			l.B[i] = rng.NormFloat64()
		}
	}
	if fb, ok := GridFracBits(net); ok {
		t.Errorf("float network: FB %d", fb)
	}
	for _, want := range []int{1, 2, 6, 12, 30} {
		q, err := Network(net, Options{Weights: Format{FracBits: want}, Biases: Format{FracBits: want}})
		if err != nil {
			t.Fatal(err)
		}
		if fb, ok := GridFracBits(q); !ok || fb != want {
			t.Errorf("quantised to %d bits: FB %d, %v", want, fb, ok)
		}
	}
	zero := &nn.Network{Layers: []nn.Layer{{W: mat.NewDense(1, 1, []float64{0.5}), B: []float64{0}, Act: nn.Activation{Kind: nn.Identity}}}}
	if fb, ok := GridFracBits(zero); !ok || fb != 1 {
		t.Errorf("one weight 0.5: FB %d, %v", fb, ok)
	}
}

// TestGridFracBitsGraph checks the width of a residual graph (a
// convolution, a scaling and a dense map) before and after Graph
// quantises it.
func TestGridFracBitsGraph(t *testing.T) {
	g := residualGraph()
	if fb, ok := GridFracBitsGraph(g); ok {
		t.Errorf("float graph: FB %d", fb)
	}
	for _, want := range []int{2, 7, 13} {
		q, err := Graph(g, Options{Weights: Format{FracBits: want}, Biases: Format{FracBits: want}})
		if err != nil {
			t.Fatal(err)
		}
		if fb, ok := GridFracBitsGraph(q); !ok || fb != want {
			t.Errorf("quantised to %d bits: FB %d, %v", want, fb, ok)
		}
	}
}

// residualGraph returns a small residual graph on a 1x3x3 input: a 2x2
// convolution (padding 1 at the end, so 3x3 out), ReLU, a scaling, the
// input added back, and a dense map to 2 outputs; float weights.
func residualGraph() *nn.Graph {
	conv := &nn.Conv2D{InC: 1, InH: 3, InW: 3, OutC: 1, OutH: 3, OutW: 3, KH: 2, KW: 2,
		Stride: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 1, Kernel: []float64{0.31, -0.77, 0.123, 1.9}}
	s := make([]float64, 9)
	for i := range s {
		s[i] = 0.5 + 0.1003*float64(i)
	}
	w := mat.NewDense(2, 9, nil)
	for i := range 2 {
		for j := range 9 {
			w.Set(i, j, 0.37*float64(i+1)-0.093*float64(j))
		}
	}
	return &nn.Graph{InputShape: []int{1, 3, 3}, Nodes: []nn.Node{
		{Op: &nn.Affine{M: conv, B: []float64{0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05}}, Inputs: []int{0}, Shape: []int{1, 3, 3}},
		{Op: nn.Act{Act: nn.Activation{Kind: nn.ReLU}}, Inputs: []int{1}, Shape: []int{1, 3, 3}},
		{Op: &nn.Affine{M: &nn.Scale{S: s}}, Inputs: []int{2}, Shape: []int{1, 3, 3}},
		{Op: nn.Add{}, Inputs: []int{3, 0}, Shape: []int{1, 3, 3}},
		{Op: &nn.Affine{M: nn.DenseMap{W: w}, B: []float64{0.1, -0.2}}, Inputs: []int{4}, Shape: []int{2}},
	}}
}
