package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestSelectNeurons(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	n := randomNetwork(rng, Activation{Kind: Sigmoid}, 3, 5, 4, 2)
	cases := []struct {
		name  string
		k     int
		src   []int
		width int
	}{
		{"permute", 0, []int{4, 2, 0, 1, 3}, 5},
		{"pad", 1, []int{-1, 3, 2, -1, 1, 0}, 6},
		{"identity", 1, []int{0, 1, 2, 3}, 4},
	}
	for _, c := range cases {
		m := n.Clone()
		if err := m.SelectNeurons(c.k, c.src); err != nil {
			t.Fatal(err)
		}
		if err := m.Validate(); err != nil || m.Layers[c.k].Out() != c.width {
			t.Fatalf("%s: %v, width %d", c.name, err, m.Layers[c.k].Out())
		}
		for range 20 {
			x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			y, _ := n.Eval(x)
			z, _ := m.Eval(x)
			for i := range y {
				if math.Abs(y[i]-z[i]) > 1e-13*max(1, math.Abs(y[i])) {
					t.Errorf("%s: output %d is %v, was %v", c.name, i, z[i], y[i])
				}
			}
		}
	}
	// Removing a neuron: its row and column go.
	m := n.Clone()
	if err := m.SelectNeurons(0, []int{0, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if m.Layers[0].W.At(1, 0) != n.Layers[0].W.At(2, 0) || m.Layers[1].W.At(0, 1) != n.Layers[1].W.At(0, 2) {
		t.Error("removal took the wrong row or column")
	}
	for _, c := range []struct {
		k   int
		src []int
	}{{-1, []int{0}}, {2, []int{0}}, {0, nil}, {0, []int{5}}} {
		if err := n.Clone().SelectNeurons(c.k, c.src); !errors.Is(err, ErrDimension) {
			t.Errorf("SelectNeurons(%d, %v): %v", c.k, c.src, err)
		}
	}
}
