package verify

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
)

// TestCheckTop1GridTie checks that two outputs of one level of an output
// quantiser are an exact tie, a disagreement, while the same network
// without the quantiser picks a class strictly; and that enclosures
// holding two grid points are not narrowed.
func TestCheckTop1GridTie(t *testing.T) {
	q := &nn.Quantiser{Scale: []float64{0.1}, Zero: []int64{-5}, Lo: nn.Int8Lo, Hi: nn.Int8Hi}
	net := func(pre, post *nn.Quantiser, act nn.ActivationKind) *nn.Network {
		l := nn.AffineLayer(mat.NewDense(2, 1, []float64{1, -1}), []float64{0, 0.6})
		l.Pre, l.Post, l.Act = pre, post, nn.Activation{Kind: act}
		return &nn.Network{Layers: []nn.Layer{l}}
	}
	f := net(nil, nil, nn.Identity)
	for _, tc := range []struct {
		name string
		g    *nn.Network
		x    float64
		want Status
	}{
		// outputs 0.31 and 0.29: level 3 + z both under q
		{"Post", net(nil, q, nn.Identity), 0.31, Violated},
		{"Pre", net(q, nil, nn.Identity), 0.31, Violated},
		{"Pre and ReLU", net(q, nil, nn.ReLU), 0.31, Violated},
		{"no quantiser", net(nil, nil, nn.Identity), 0.31, Holds},
		// outputs 0.47 and 0.13: levels 5 and 1 + z
		{"levels apart", net(nil, q, nn.Identity), 0.47, Holds},
	} {
		p, s, err := CheckTop1(f, tc.g, []float64{tc.x}, []float64{tc.x})
		if err != nil {
			t.Fatal(err)
		}
		if s != tc.want {
			t.Errorf("%s: %v, want %v (g in [%v, %v])", tc.name, s, tc.want, p.GLo, p.GHi)
		}
		if p.FGrid || p.GGrid != (outputGrid(tc.g) != nil) {
			t.Errorf("%s: grids f %v g %v", tc.name, p.FGrid, p.GGrid)
		}
	}
	lo, hi := []float64{0.29, 0.5}, []float64{0.41, 0.5}
	if snapToGrid(q, lo, hi) {
		t.Errorf("an enclosure holding two grid points: narrowed to %v", lo)
	}
	lo, hi = []float64{0.2999}, []float64{0.3001}
	if !snapToGrid(q, lo, hi) || lo[0] != 0.30000000000000004 && lo[0] != 0.3 {
		t.Errorf("narrowing [0.2999, 0.3001]: got %v", lo)
	}
	if outputGrid(net(&nn.Quantiser{Scale: []float64{0.1, 0.2}, Zero: []int64{0, 0}, Lo: nn.Int8Lo, Hi: nn.Int8Hi}, nil, nn.Identity)) != nil {
		t.Errorf("a per-value output quantiser has no common grid")
	}
}
