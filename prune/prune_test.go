package prune

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/jsonnet"
)

// TestPaperPruned reproduces the authors' pruned network: the eight hidden
// neurons (of the second hidden layer) with the smallest 2-norms zeroed,
// biases kept.
func TestPaperPruned(t *testing.T) {
	dir := sharedtest.Path(t, "data", "networks", "paper")
	orig, err := jsonnet.Read(filepath.Join(dir, "pruned_nn1_original.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := jsonnet.Read(filepath.Join(dir, "pruned_nn2.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, chosen, err := Neurons(orig, DefaultNeuronOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !nn.Equal(got, want) {
		t.Errorf("pruned network differs from the authors'; pruned %v", chosen)
	}
}

// layered returns a 1-3-3-3-1 network whose hidden rows have the given
// 2-norms (row i of layer k is norms[k-1][i] times a unit vector).
func layered(norms [2][3]float64) *nn.Network {
	net := &nn.Network{}
	relu := nn.Activation{Kind: nn.ReLU}
	net.Layers = append(net.Layers, nn.Layer{W: mat.NewDense(3, 1, []float64{1, 2, 3}), B: []float64{1, 1, 1}, Act: relu})
	for _, ns := range norms {
		w := mat.NewDense(3, 3, nil)
		for i, n := range ns {
			w.Set(i, (i+1)%3, -n)
		}
		net.Layers = append(net.Layers, nn.Layer{W: w, B: []float64{0.5, 0.25, 0.125}, Act: relu})
	}
	net.Layers = append(net.Layers, nn.Layer{W: mat.NewDense(1, 3, []float64{1, 1, 1}), B: []float64{0}})
	return net
}

func TestNeuronsChoice(t *testing.T) {
	net := layered([2][3]float64{{3, 1, 2}, {1, 0.5, 1}})
	for _, tc := range []struct {
		name string
		opts NeuronOptions
		want []Neuron
	}{
		{"global", NeuronOptions{Count: 3}, []Neuron{{2, 1, 0.5}, {1, 1, 1}, {2, 0, 1}}},
		{"global tie broken by layer then index", NeuronOptions{Count: 4}, []Neuron{{2, 1, 0.5}, {1, 1, 1}, {2, 0, 1}, {2, 2, 1}}},
		{"per layer", NeuronOptions{Count: 1, Scope: PerLayer}, []Neuron{{1, 1, 1}, {2, 1, 0.5}}},
		{"none", NeuronOptions{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, chosen, err := Neurons(net, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(chosen) != len(tc.want) {
				t.Fatalf("chose %v, want %v", chosen, tc.want)
			}
			for i := range chosen {
				if chosen[i] != tc.want[i] {
					t.Fatalf("chose %v, want %v", chosen, tc.want)
				}
				row := got.Layers[chosen[i].Layer].W.RawRowView(chosen[i].Index)
				for _, v := range row {
					if v != 0 {
						t.Errorf("row of %v not zeroed: %v", chosen[i], row)
					}
				}
			}
			d, err := nn.ParamDiff(net, got)
			if err != nil || d.Zeroed != len(tc.want) || d.Changed != len(tc.want) {
				t.Errorf("diff %+v %v: want only the %d chosen weights zeroed", d, err, len(tc.want))
			}
		})
	}
}

// TestRemove checks that removing neurons gives the function of the network
// with their rows, biases and outgoing columns zeroed.
func TestRemove(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	net, err := randnet.New(rng, []int{2, 5, 6, 4, 1})
	if err != nil {
		t.Fatal(err)
	}
	opts := NeuronOptions{Count: 3, Remove: true}
	removed, chosen, err := Neurons(net, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := removed.NumParams(); got >= net.NumParams() {
		t.Errorf("%d parameters after removal, %d before", got, net.NumParams())
	}
	// Reference: zero the chosen neurons' rows, biases and outgoing columns.
	ref := net.Clone()
	for _, n := range chosen {
		l := ref.Layers[n.Layer]
		for j := range l.In() {
			l.W.Set(n.Index, j, 0)
		}
		l.B[n.Index] = 0
		next := ref.Layers[n.Layer+1]
		for o := range next.Out() {
			next.W.Set(o, n.Index, 0)
		}
	}
	for range 20 {
		x := []float64{rng.NormFloat64(), rng.NormFloat64()}
		a, _ := removed.Eval(x)
		b, _ := ref.Eval(x)
		if a[0] != b[0] {
			t.Fatalf("f(%v): removed %v, reference %v", x, a, b)
		}
	}
	if err := removed.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Neurons(net, NeuronOptions{Count: 4, Scope: PerLayer, Remove: true}); !errors.Is(err, ErrOptions) {
		t.Errorf("removing a whole layer: err = %v", err)
	}
}

func TestNeuronErrors(t *testing.T) {
	net := layered([2][3]float64{{1, 2, 3}, {1, 2, 3}})
	shallow := &nn.Network{Layers: net.Layers[:1]}
	for _, tc := range []struct {
		name string
		net  *nn.Network
		opts NeuronOptions
	}{
		{"negative", net, NeuronOptions{Count: -1}},
		{"too many", net, NeuronOptions{Count: 7}},
		{"too many per layer", net, NeuronOptions{Count: 4, Scope: PerLayer}},
		{"bad scope", net, NeuronOptions{Count: 1, Scope: Scope(9)}},
		{"no candidates", shallow, NeuronOptions{Count: 1}},
	} {
		if _, _, err := Neurons(tc.net, tc.opts); !errors.Is(err, ErrOptions) {
			t.Errorf("%s: err = %v, want ErrOptions", tc.name, err)
		}
	}
}

func TestWeights(t *testing.T) {
	net := &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(2, 2, []float64{4, -1, 0.5, -0.5}), B: []float64{1, 1}, Act: nn.Activation{Kind: nn.ReLU}},
		{W: mat.NewDense(1, 2, []float64{3, 0.25}), B: []float64{2}},
	}}
	for _, tc := range []struct {
		name string
		opts WeightOptions
		want [][]float64
		n    int
	}{
		{"per layer half", WeightOptions{Sparsity: 0.5, Scope: PerLayer}, [][]float64{{4, -1, 0, 0}, {3, 0}}, 3},
		{"global half", WeightOptions{Sparsity: 0.5, Scope: Global}, [][]float64{{4, -1, 0, 0}, {3, 0}}, 3},
		{"global third", WeightOptions{Sparsity: 1.0 / 3, Scope: Global}, [][]float64{{4, -1, 0, -0.5}, {3, 0}}, 2},
		{"tie by position", WeightOptions{Sparsity: 0.25, Scope: PerLayer}, [][]float64{{4, -1, 0, -0.5}, {3, 0.25}}, 1},
		{"none", WeightOptions{}, [][]float64{{4, -1, 0.5, -0.5}, {3, 0.25}}, 0},
		{"all", WeightOptions{Sparsity: 1}, [][]float64{{0, 0, 0, 0}, {0, 0}}, 6},
	} {
		got, n, err := Weights(net, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		for k, l := range got.Layers {
			data := l.W.RawMatrix().Data
			for i := range data {
				if data[i] != tc.want[k][i] {
					t.Errorf("%s: layer %d weights %v, want %v", tc.name, k, data, tc.want[k])
					break
				}
			}
		}
		if n != tc.n {
			t.Errorf("%s: zeroed %d, want %d", tc.name, n, tc.n)
		}
		if got.Layers[0].B[0] != 1 || got.Layers[1].B[0] != 2 {
			t.Errorf("%s: biases changed", tc.name)
		}
	}
	for _, s := range []float64{-0.1, 1.5} {
		if _, _, err := Weights(net, WeightOptions{Sparsity: s}); !errors.Is(err, ErrOptions) {
			t.Errorf("sparsity %v: err = %v", s, err)
		}
	}
}
