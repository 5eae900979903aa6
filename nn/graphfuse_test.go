package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFuse checks each merge rule of Graph.Fuse: the merged graph has the
// expected number of nodes and evaluates as the original to 1e-12, and a
// value read twice, a convolution before a map not per channel and a
// product over the limit stay unmerged.
func TestFuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	conv := func(inC, outC int) *Conv2D {
		return &Conv2D{InC: inC, InH: 4, InW: 4, OutC: outC, OutH: 4, OutW: 4, KH: 3, KW: 3, Stride: [2]int{1, 1},
			Pad: [2]int{1, 1}, Dil: [2]int{1, 1}, Groups: 1, Kernel: randVec(rng, inC*outC*9, 1)}
	}
	perChan := func(c, plane int) []float64 {
		s := make([]float64, c*plane)
		for i := range s {
			s[i] = 1 + float64(i/plane)
		}
		return s
	}
	dense := func(r, c int) Op {
		return &Affine{M: DenseMap{mat.NewDense(r, c, randVec(rng, r*c, 1))}, B: randVec(rng, r, 1)}
	}
	scale := func(s []float64) Op { return &Affine{M: &Scale{s}, B: randVec(rng, len(s), 1)} }
	chain := func(in []int, ops ...Op) *Graph {
		g := &Graph{InputShape: in}
		for k, op := range ops {
			g.Nodes = append(g.Nodes, Node{Op: op, Inputs: []int{k}})
		}
		return g
	}
	relu := Act{Activation{Kind: ReLU}}
	ones := func(n int) []float64 { return perChan(1, n) }
	cases := []struct {
		name  string
		g     *Graph
		nodes int // after fusion
	}{
		{"scale scale", chain([]int{6}, scale(randVec(rng, 6, 1)), scale(randVec(rng, 6, 1))), 1},
		{"shift after conv", chain([]int{1, 4, 4}, &Affine{M: conv(1, 2)}, scale(ones(32))), 1},
		{"conv then channel scale", chain([]int{1, 4, 4}, &Affine{M: conv(1, 2), B: randVec(rng, 32, 1)},
			scale(perChan(2, 16))), 1},
		{"channel scale then conv", chain([]int{2, 4, 4}, scale(perChan(2, 16)), &Affine{M: conv(2, 3)}), 1},
		{"conv then value scale", chain([]int{1, 4, 4}, &Affine{M: conv(1, 2)}, scale(randVec(rng, 32, 1))), 2},
		{"dense dense", chain([]int{5}, dense(4, 5), dense(3, 4)), 1},
		{"dense grows", chain([]int{30}, dense(2, 30), dense(30, 2)), 2},
		{"gather dense", chain([]int{4}, &Affine{M: &Gather{N: 4, Index: []int{3, -1, 0, 1, 2}}, B: randVec(rng, 5, 1)},
			dense(3, 5)), 1},
		{"gather gather", chain([]int{4}, &Affine{M: &Gather{N: 4, Index: []int{3, -1, 0}}},
			&Affine{M: &Gather{N: 3, Index: []int{2, 1, 0, 2}}}), 1},
		{"act between", chain([]int{5}, dense(4, 5), relu, dense(3, 4)), 3},
	}
	// A value read twice is not merged.
	twice := chain([]int{5}, dense(4, 5), dense(4, 4))
	twice.Nodes = append(twice.Nodes, Node{Op: Add{}, Inputs: []int{1, 2}})
	cases = append(cases, struct {
		name  string
		g     *Graph
		nodes int
	}{"read twice", twice, 3})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, n := range c.g.Nodes {
				sizes := make([]int, len(n.Inputs))
				for i, v := range n.Inputs {
					sizes[i] = c.g.Size(v)
				}
				out, _ := outSize(n.Op, sizes)
				c.g.Nodes[k].Shape = []int{out}
			}
			if err := c.g.Validate(); err != nil {
				t.Fatal(err)
			}
			f := c.g.Clone()
			f.Fuse(1 << 9)
			if err := f.Validate(); err != nil {
				t.Fatal(err)
			}
			if len(f.Nodes) != c.nodes {
				t.Errorf("%d nodes after fusion (%s), want %d", len(f.Nodes), f.Ops(), c.nodes)
			}
			for range 10 {
				x := randVec(rng, c.g.InputSize(), 1)
				want, _ := c.g.Eval(x)
				got, _ := f.Eval(x)
				for i := range want {
					if math.Abs(got[i]-want[i]) > 1e-12*max(1, math.Abs(want[i])) {
						t.Fatalf("output %d: %v, want %v", i, got[i], want[i])
					}
				}
			}
		})
	}
}
