package quantise

import (
	"slices"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
)

// TestGraphMatchesNetwork checks that quantising a chain's graph gives the
// graph of the quantised chain, in fixed point and in float16.
func TestGraphMatchesNetwork(t *testing.T) {
	net := randnet.Paper(3, 2, 3, 8, 2)
	fixed := DefaultOptions()
	fixed.Weights.FracBits, fixed.Biases.FracBits = 4, 5
	wantFixed, err := Network(net, fixed)
	if err != nil {
		t.Fatal(err)
	}
	gotFixed, err := Graph(net.Graph(), fixed)
	if err != nil {
		t.Fatal(err)
	}
	wantHalf, err := Float16(net)
	if err != nil {
		t.Fatal(err)
	}
	gotHalf, err := Float16Graph(net.Graph())
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range [][]float64{{0.3, -0.7}, {1, 1}, {-0.25, 0.5}} {
		for _, c := range []struct {
			name string
			got  func([]float64) ([]float64, error)
			want func([]float64) ([]float64, error)
		}{{"fixed", gotFixed.Eval, wantFixed.Eval}, {"float16", gotHalf.Eval, wantHalf.Eval}} {
			g, _ := c.got(x)
			w, _ := c.want(x)
			if !slices.Equal(g, w) {
				t.Errorf("%s at %v: graph %v, chain %v", c.name, x, g, w)
			}
		}
	}
	if y0, _ := net.Eval([]float64{0.3, -0.7}); slices.Equal(y0, must(gotFixed.Eval([]float64{0.3, -0.7}))) {
		t.Error("quantising changed nothing")
	}
}

// must returns v, dropping the error.
func must(v []float64, _ error) []float64 { return v }

// TestSampleRangesConv checks that calibrating a network with a
// convolution reads its structured layer instead of failing.
func TestSampleRangesConv(t *testing.T) {
	conv := &nn.Conv2D{InC: 1, InH: 3, InW: 3, OutC: 1, OutH: 2, OutW: 2, KH: 2, KW: 2,
		Stride: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 1, Kernel: []float64{1, -1, 0.5, 2}}
	net := &nn.Network{Layers: []nn.Layer{{Conv: conv, B: make([]float64, 4), Act: nn.Activation{Kind: nn.ReLU}}}}
	r, err := SampleRanges(net, [][]float64{{1, 0, 0, 0, 1, 0, 0, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Pre[0] != [2]float64{-1, 3} {
		t.Errorf("pre-activation range %v, want [-1, 3]", r.Pre[0])
	}
}
