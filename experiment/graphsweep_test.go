package experiment

import (
	"errors"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestCompressGraphMatchesChain checks that a sweep's graph copy of a
// chain's graph, at every kind of pruning level, is the graph of the
// chain's copy, and that int8 and activation rounding are refused.
func TestCompressGraphMatchesChain(t *testing.T) {
	net := randnet.Paper(5, 3, 4, 6, 2)
	box := spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}
	q := quantise.Format{FracBits: 6}
	for _, l := range []PruneLevel{{}, {Neurons: 3}, {Sparsity: 0.5}} {
		want, err := CopyScheme{}.Compress(l, q, box)(net)
		if err != nil {
			t.Fatal(err)
		}
		got, err := CopyScheme{}.CompressGraph(l, q)(net.Graph())
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range [][]float64{{0.3, -0.7, 0.1}, {1, 1, -1}, {-0.25, 0.5, 0.9}} {
			yw, _ := want.Eval(x)
			yg, _ := got.Eval(x)
			if !slices.Equal(yw, yg) {
				t.Errorf("level %v at %v: graph copy %v, chain copy %v", l, x, yg, yw)
			}
		}
	}
	for _, s := range []CopyScheme{{Int8: true}, {ActFracBits: 4}} {
		if _, err := s.CompressGraph(PruneLevel{}, q)(net.Graph()); !errors.Is(err, quantise.ErrFormat) {
			t.Errorf("%+v: error %v, want ErrFormat", s, err)
		}
	}
}
