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
