package certjob

import (
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestCopyWidth checks that CopyWidth sets the width of a quantised copy
// for quantised inputs only, and refuses a copy on no grid.
func TestCopyWidth(t *testing.T) {
	net := randnet.Paper(1, 1, 2, 4, 1)
	q := quantise.Format{FracBits: 3, Rounding: quantise.Nearest}
	copy, err := quantise.Network(net, quantise.Options{Weights: q, Biases: q})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pairing spec.Pairing
		fb      int // set beforehand
		want    int // returned
		ok      bool
	}{{spec.QuantisedInput, 0, 3, true}, {spec.QuantisedInput, 5, 0, true}, {spec.SameInput, 0, 0, true}} {
		j := Default()
		j.Pairing, j.Quant.FracBits = c.pairing, c.fb
		fb, ok := j.CopyWidth(copy.Graph())
		if fb != c.want || ok != c.ok || (fb > 0 && j.Quant.FracBits != fb) || (fb == 0 && j.Quant.FracBits != c.fb) {
			t.Errorf("%v, width %d: got %d %v (quantiser %d bits), want %d %v", c.pairing, c.fb, fb, ok, j.Quant.FracBits, c.want, c.ok)
		}
	}
	j := Default()
	j.Pairing, j.Quant.FracBits = spec.QuantisedInput, 0
	if _, ok := j.CopyWidth(net.Graph()); ok {
		t.Errorf("a network of standard normal weights is on a grid")
	}
}
