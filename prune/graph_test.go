package prune

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
)

// TestGraphMatchesChain checks that pruning a chain's graph prunes as the
// chain is pruned: the same weights or neurons, the same function, for
// dense and convolutional chains, zeroed and removed.
func TestGraphMatchesChain(t *testing.T) {
	nets := map[string]*nn.Network{"dense": randnet.Paper(4, 3, 4, 6, 2), "conv": convNet(rand.New(rand.NewPCG(7, 8)))}
	for name, net := range nets {
		for _, scope := range []Scope{Global, PerLayer} {
			wantNet, wantN, err := Weights(net, WeightOptions{Sparsity: 0.4, Scope: scope})
			if err != nil {
				t.Fatal(err)
			}
			gotG, gotN, err := WeightsGraph(net.Graph(), WeightOptions{Sparsity: 0.4, Scope: scope})
			if err != nil {
				t.Fatal(err)
			}
			if gotN != wantN {
				t.Errorf("%s weights %v: zeroed %d, chain %d", name, scope, gotN, wantN)
			}
			sameFunction(t, name+" weights", wantNet.Graph(), gotG)
			for _, remove := range []bool{false, true} {
				o := NeuronOptions{Count: 1, Scope: scope, Remove: remove}
				wantNet, wantChosen, err := Neurons(net, o)
				if err != nil {
					t.Fatal(err)
				}
				gotG, gotChosen, err := NeuronsGraph(net.Graph(), o)
				if err != nil {
					t.Fatalf("%s %+v: %v", name, o, err)
				}
				if len(gotChosen) != len(wantChosen) {
					t.Fatalf("%s %+v: %d neurons, chain %d", name, o, len(gotChosen), len(wantChosen))
				}
				for i, n := range gotChosen {
					if n.Index != wantChosen[i].Index || n.Norm != wantChosen[i].Norm {
						t.Errorf("%s %+v: neuron %d is %+v, chain %+v", name, o, i, n, wantChosen[i])
					}
				}
				sameFunction(t, name+" neurons", wantNet.Graph(), gotG)
			}
		}
	}
}

// sameFunction fails unless a and b agree to 1e-12 at random inputs.
func sameFunction(t *testing.T, what string, a, b *nn.Graph) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		x := make([]float64, a.InputSize())
		for i := range x {
			x[i] = 2*rng.Float64() - 1
		}
		ya, err := a.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		yb, err := b.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ya {
			if math.Abs(ya[i]-yb[i]) > 1e-12*(1+math.Abs(ya[i])) {
				t.Fatalf("%s: output %d is %v, want %v", what, i, yb[i], ya[i])
			}
		}
	}
}

// branchGraph returns a graph on 2x4x4 inputs: conv 3x3 2->4 pad 1, ReLU,
// then two branches: conv 3x3 4->5 pad 1, a per-value scaling (a batch
// normalisation), ReLU, max pool 2x2, conv 1x1 5->3, ReLU; and an average
// pool 2x2 of the first ReLU; concatenated (7x2x2) and read by a dense map
// to 2 outputs.
func branchGraph(rng *rand.Rand) *nn.Graph {
	conv := randConv(rng)
	pool := nn.Pool2D{C: 5, InH: 4, InW: 4, OutH: 2, OutW: 2, KH: 2, KW: 2, Stride: [2]int{2, 2}, Dil: [2]int{1, 1}}
	avg := pool
	avg.C = 4
	s := make([]float64, 5*16)
	for i := range s {
		s[i] = 0.5 + rng.Float64()
	}
	relu := nn.Act{Act: nn.Activation{Kind: nn.ReLU}}
	w := mat.NewDense(2, 7*4, nil)
	for i := range 2 {
		for j := range 28 {
			w.Set(i, j, rng.NormFloat64())
		}
	}
	nodes := []nn.Node{
		{Op: conv(2, 4, 3, 1, 4), Inputs: []int{0}, Shape: []int{4, 4, 4}},                       // 0
		{Op: relu, Inputs: []int{1}, Shape: []int{4, 4, 4}},                                      // 1
		{Op: conv(4, 5, 3, 1, 4), Inputs: []int{2}, Shape: []int{5, 4, 4}},                       // 2
		{Op: &nn.Affine{M: &nn.Scale{S: s}}, Inputs: []int{3}, Shape: []int{5, 4, 4}},            // 3
		{Op: relu, Inputs: []int{4}, Shape: []int{5, 4, 4}},                                      // 4
		{Op: &nn.MaxPool{Pool2D: pool}, Inputs: []int{5}, Shape: []int{5, 2, 2}},                 // 5
		{Op: conv(5, 3, 1, 0, 2), Inputs: []int{6}, Shape: []int{3, 2, 2}},                       // 6
		{Op: relu, Inputs: []int{7}, Shape: []int{3, 2, 2}},                                      // 7
		{Op: &nn.Affine{M: &nn.AvgPool2D{Pool2D: avg}}, Inputs: []int{2}, Shape: []int{4, 2, 2}}, // 8
		{Op: nn.Concat{}, Inputs: []int{8, 9}, Shape: []int{7, 2, 2}},                            // 9
		{Op: &nn.Affine{M: nn.DenseMap{W: w}, B: []float64{0.3, -0.1}}, Inputs: []int{10}, Shape: []int{2}},
	}
	return &nn.Graph{InputShape: []int{2, 4, 4}, Nodes: nodes}
}

// randConv returns a function making affine nodes of random convolutions
// of inC to outC channels, k x k kernels with padding pad, on hw x hw
// planes kept hw x hw, with random biases.
func randConv(rng *rand.Rand) func(inC, outC, k, pad, hw int) *nn.Affine {
	return func(inC, outC, k, pad, hw int) *nn.Affine {
		c := &nn.Conv2D{InC: inC, InH: hw, InW: hw, OutC: outC, OutH: hw, OutW: hw, KH: k, KW: k,
			Stride: [2]int{1, 1}, Dil: [2]int{1, 1}, Pad: [2]int{pad, pad}, Groups: 1, Kernel: make([]float64, outC*inC*k*k)}
		for i := range c.Kernel {
			c.Kernel[i] = rng.NormFloat64()
		}
		b := make([]float64, outC*hw*hw)
		for i := range b {
			b[i] = 0.1 * rng.NormFloat64()
		}
		return &nn.Affine{M: c, B: b}
	}
}

// residualGraph returns a graph on 2x3x3 inputs: conv 2->4, ReLU, conv
// 4->4 added to that ReLU's output (an identity skip), ReLU, conv 4->3,
// ReLU, dense to 2 outputs.
func residualGraph(rng *rand.Rand) *nn.Graph {
	conv := randConv(rng)
	relu := nn.Act{Act: nn.Activation{Kind: nn.ReLU}}
	w := mat.NewDense(2, 27, nil)
	for i := range 2 {
		for j := range 27 {
			w.Set(i, j, rng.NormFloat64())
		}
	}
	return &nn.Graph{InputShape: []int{2, 3, 3}, Nodes: []nn.Node{
		{Op: conv(2, 4, 3, 1, 3), Inputs: []int{0}, Shape: []int{4, 3, 3}},
		{Op: relu, Inputs: []int{1}, Shape: []int{4, 3, 3}},
		{Op: conv(4, 4, 3, 1, 3), Inputs: []int{2}, Shape: []int{4, 3, 3}},
		{Op: nn.Add{}, Inputs: []int{3, 2}, Shape: []int{4, 3, 3}},
		{Op: relu, Inputs: []int{4}, Shape: []int{4, 3, 3}},
		{Op: conv(4, 3, 1, 0, 3), Inputs: []int{5}, Shape: []int{3, 3, 3}},
		{Op: relu, Inputs: []int{6}, Shape: []int{3, 3, 3}},
		{Op: &nn.Affine{M: nn.DenseMap{W: w}, B: []float64{0.3, -0.1}}, Inputs: []int{7}, Shape: []int{2}},
	}}
}

// TestNeuronsGraphRemove removes channels of a graph with a scaling, a max
// pool, an average pool and a concatenation on their way, and checks the
// result against the original graph whose readers of those channels (the
// next convolution's input channels, the dense map's columns) are zeroed:
// the same function, written independently of the removal.
func TestNeuronsGraphRemove(t *testing.T) {
	g := branchGraph(rand.New(rand.NewPCG(9, 10)))
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	_, chosen, err := NeuronsGraph(g, NeuronOptions{Count: 2, Scope: PerLayer})
	if err != nil {
		t.Fatal(err)
	}
	if len(chosen) != 4 || chosen[0].Layer != 2 || chosen[2].Layer != 6 {
		t.Fatalf("chosen %+v, want 2 channels of nodes 2 and 6", chosen)
	}
	removed, _, err := NeuronsGraph(g, NeuronOptions{Count: 2, Scope: PerLayer, Remove: true})
	if err == nil {
		t.Fatal("a concatenated channel was removed") // node 6's channels reach the Concat
	}
	if !strings.Contains(err.Error(), "concat") || !errors.Is(err, ErrOptions) {
		t.Errorf("error %q does not name the concatenation", err)
	}
	// Node 2's channels alone: through the scaling, ReLU and max pool to
	// the 1x1 convolution.
	ref := g.Clone()
	c6 := ref.Nodes[6].Op.(*nn.Affine).M.(*nn.Conv2D)
	var drop []int
	for _, n := range chosen[:2] {
		drop = append(drop, n.Index)
	}
	for o := range c6.OutC {
		for _, c := range drop {
			clear(c6.Kernel[o*c6.InC+c : o*c6.InC+c+1])
		}
	}
	removed, err = removeNodeChannels(g, 2, drop)
	if err != nil {
		t.Fatal(err)
	}
	if got := removed.Nodes[2].Shape[0]; got != 3 {
		t.Errorf("node 2 has %d channels, want 3", got)
	}
	sameFunction(t, "removed", ref, removed)
}

// removeNodeChannels returns the copy of g with the channels drop of node
// k removed (removeGraph).
func removeNodeChannels(g *nn.Graph, k int, drop []int) (*nn.Graph, error) {
	out := g.Clone()
	var chosen []Neuron
	for _, c := range drop {
		chosen = append(chosen, Neuron{Layer: k, Index: c})
	}
	return out, removeGraph(out, chosen)
}

// TestNeuronsGraphRefusals checks that removal names the node preventing
// it (a residual Add), that zeroing works there, and that quantised graphs
// are refused.
func TestNeuronsGraphRefusals(t *testing.T) {
	g := residualGraph(rand.New(rand.NewPCG(9, 10)))
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := NeuronsGraph(g, NeuronOptions{Count: 1, Scope: PerLayer, Remove: true}); err == nil || !strings.Contains(err.Error(), `(add)`) {
		t.Errorf("removal through a residual Add: error %v, want one naming the add", err)
	}
	z, chosen, err := NeuronsGraph(g, NeuronOptions{Count: 1, Scope: Global})
	if err != nil {
		t.Fatal(err)
	}
	if w := mapUnitWeights(affineMap(z, chosen[0].Layer), chosen[0].Index); slices.ContainsFunc(w, func(v float64) bool { return v != 0 }) {
		t.Errorf("neuron %+v not zeroed", chosen[0])
	}
	q := g.Clone()
	q.Nodes = slices.Insert(q.Nodes, 0, nn.Node{Op: &nn.Quantise{Q: &nn.Quantiser{Scale: []float64{0.5}, Zero: []int64{0}, Lo: -128, Hi: 127}}, Inputs: []int{0}, Shape: []int{2, 3, 3}})
	for k := 1; k < len(q.Nodes); k++ {
		for i := range q.Nodes[k].Inputs {
			q.Nodes[k].Inputs[i]++
		}
	}
	if _, _, err := WeightsGraph(q, DefaultWeightOptions()); !errors.Is(err, nn.ErrQuantised) {
		t.Errorf("quantised graph: error %v, want ErrQuantised", err)
	}
}
