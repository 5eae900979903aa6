package prune

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// convNet returns a random CNN 1x5x5 -> Conv 4 3x3 pad 1 -> ReLU -> Conv 3
// 3x3 stride 2 -> ReLU -> Conv 2 1x1 -> ReLU -> Dense 2, with structured
// layers.
func convNet(rng *rand.Rand) *nn.Network {
	geo := []nn.Conv2D{
		{InC: 1, InH: 5, InW: 5, OutC: 4, OutH: 5, OutW: 5, KH: 3, KW: 3, Pad: [2]int{1, 1}},
		{InC: 4, InH: 5, InW: 5, OutC: 3, OutH: 2, OutW: 2, KH: 3, KW: 3},
		{InC: 3, InH: 2, InW: 2, OutC: 2, OutH: 2, OutW: 2, KH: 1, KW: 1},
	}
	net := &nn.Network{}
	for _, g := range geo {
		c := g
		c.Stride, c.Dil, c.Groups = [2]int{1, 1}, [2]int{1, 1}, 1
		if c.InC == 4 {
			c.Stride = [2]int{2, 2}
		}
		c.Kernel = make([]float64, c.OutC*c.InC*c.KH*c.KW)
		for i := range c.Kernel {
			c.Kernel[i] = rng.NormFloat64()
		}
		bias := []float64{0.1, -0.2, 0.3, 0.05}[:c.OutC]
		l, err := nn.ConvLayer(&c, bias, nn.Activation{Kind: nn.ReLU})
		if err != nil {
			panic(err)
		}
		net.Layers = append(net.Layers, l)
	}
	w := make([]float64, 2*8)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	net.Layers = append(net.Layers, nn.AffineLayer(mat.NewDense(2, 8, w), []float64{0, 1}))
	return net
}

// TestNeuronsPerChannel prunes one whole output channel of each
// convolutional layer after the first (layer 1, followed by a convolution,
// and layer 2, followed by a dense layer): zeroing clears each chosen channel's kernel (ranked by its
// 2-norm), and removing gives the function of the network whose chosen
// channels have zero kernels and biases.
func TestNeuronsPerChannel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	net := convNet(rng)
	if err := net.Validate(); err != nil {
		t.Fatal(err)
	}
	zeroed, chosen, err := Neurons(net, NeuronOptions{Count: 1, Scope: PerLayer})
	if err != nil {
		t.Fatal(err)
	}
	if len(chosen) != 2 {
		t.Fatalf("%d channels chosen, want 2", len(chosen))
	}
	for _, n := range chosen {
		c := net.Layers[n.Layer].Conv
		per := len(c.Kernel) / c.OutC
		norm := 0.0
		for _, v := range c.Kernel[n.Index*per : (n.Index+1)*per] {
			norm += v * v
		}
		if math.Abs(math.Sqrt(norm)-n.Norm) > 1e-12 {
			t.Errorf("channel %d of layer %d: norm %v, want %v", n.Index, n.Layer, n.Norm, math.Sqrt(norm))
		}
		for _, v := range zeroed.Layers[n.Layer].Conv.Kernel[n.Index*per : (n.Index+1)*per] {
			if v != 0 {
				t.Fatalf("channel %d of layer %d not zeroed", n.Index, n.Layer)
			}
		}
	}
	removed, _, err := Neurons(net, NeuronOptions{Count: 1, Scope: PerLayer, Remove: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := removed.Validate(); err != nil {
		t.Fatal(err)
	}
	dead := zeroed.Clone() // the chosen channels output relu(0) = 0
	for _, n := range chosen {
		c := dead.Layers[n.Layer].Conv
		plane := c.OutH * c.OutW
		clear(dead.Layers[n.Layer].B[n.Index*plane : (n.Index+1)*plane])
	}
	if removed.NumParams() >= net.NumParams() {
		t.Errorf("removal kept %d of %d parameters", removed.NumParams(), net.NumParams())
	}
	for range 20 {
		x := make([]float64, net.InputSize())
		for i := range x {
			x[i] = rng.Float64()
		}
		a, _ := removed.Eval(x)
		b, _ := dead.Eval(x)
		for j := range a {
			if math.Abs(a[j]-b[j]) > 1e-12 {
				t.Fatalf("removed %v, zeroed with zero bias %v", a, b)
			}
		}
	}
}
