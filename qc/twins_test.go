package qc

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

// TestExactTwins checks which neurons of network 2 are proven to compute
// exactly what network 1's do, and that MergeIdentical shares coordinates
// only for those.
func TestExactTwins(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	relu := nn.Activation{Kind: nn.ReLU}
	f1 := randNet(rng, []int{2, 3, 3, 1}, relu, 1)
	same := []Input{{Mode: InputSame}, {Mode: InputSame}}
	free := []Input{{Mode: InputFree}, {Mode: InputSame}}
	tiny := f1.Clone()
	// A change far below the rounding of any form built from the weight.
	tiny.Layers[1].W.Set(0, 1, tiny.Layers[1].W.At(0, 1)*(1+math.Ldexp(1, -50)))
	pruned := f1.Clone()
	pruned.Layers[1].W.Set(2, 0, 0)
	pruned.Layers[1].W.Set(2, 1, 0)
	pruned.Layers[1].W.Set(2, 2, 0)
	// Network 1 ignores neuron 0 of layer 1; network 2 changes it.
	g1 := f1.Clone()
	g1.Layers[2].W.Set(0, 0, 0)
	g2 := g1.Clone()
	g2.Layers[1].W.Set(0, 0, 5)
	for _, c := range []struct {
		name   string
		f1, f2 *nn.Network
		in2    []Input
		want   [][]bool
	}{
		{"itself", f1, f1, same, [][]bool{{true, true, true}, {true, true, true}, {true}}},
		{"independent input 0", f1, f1, free, [][]bool{{false, false, false}, {false, false, false}, {false}}},
		{"weight off by 2^-50", f1, tiny, same, [][]bool{{true, true, true}, {false, true, true}, {false}}},
		{"pruned neuron", f1, pruned, same, [][]bool{{true, true, true}, {true, true, false}, {false}}},
		{"difference only where unused", g1, g2, same, [][]bool{{true, true, true}, {false, true, true}, {true}}},
	} {
		got := exactTwins([2]*nn.Network{c.f1, c.f2}, make([]Input, 2), c.in2, [2][][]float64{})
		if !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("%s: twins %v, want %v", c.name, got, c.want)
		}
		cfg := Config{Nets: [2]*nn.Network{c.f1, c.f2}, X2: c.in2, MergeIdentical: true}
		l, err := NewLayout(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if n := Order(cfg); n != l.Dim {
			t.Errorf("%s: Order %d, layout's order %d", c.name, n, l.Dim)
		}
		for k, row := range got {
			lay1, lay2 := &l.Nets[0].Layers[k], &l.Nets[1].Layers[k]
			for i, twin := range row {
				if lay1.Act.Kind == nn.Identity {
					continue
				}
				if shared := lay2.Coord[i] < 0; shared != twin {
					t.Errorf("%s: layer %d neuron %d: shares a coordinate %v, twin %v", c.name, k, i, shared, twin)
				}
			}
		}
	}
}
