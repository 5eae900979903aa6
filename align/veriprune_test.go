package align

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/modelfile"
	"github.com/nnbound/nnbound/spec"
	"github.com/nnbound/nnbound/vnnlib"
)

// TestVeriPrune aligns the shared VeriPrune pairs: an ACAS Xu network f
// and its node-pruned, fine-tuned copy g, whose surviving neurons keep
// their places. Align must leave g as it is; a shuffled g must come back
// to g exactly.
func TestVeriPrune(t *testing.T) {
	dir := sharedtest.Path(t, "data", "benchmarks", "veriprune")
	prop, err := vnnlib.ReadPairFile(filepath.Join(dir, "equivalence_eps0.05.vnnlib"))
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Lo, opts.Hi = prop.Box.Lo, prop.Box.Hi
	load := func(name string) *nn.Network {
		net, _, err := modelfile.Load(filepath.Join(dir, "onnx", name), modelfile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return net
	}
	f := load(filepath.Join("nets", "ACASXU_run2a_1_1_batch_2000.onnx"))
	for _, pruned := range []string{"pruned5", "pruned10"} {
		g := load(filepath.Join("nets_pruned", "ACASXU_run2a_1_1_batch_2000_"+pruned+".onnx"))
		if err := prop.CheckNetworks(f, g); err != nil {
			t.Fatal(err)
		}
		h, rep, err := Align(f, g, opts)
		if err != nil {
			t.Fatal(err)
		}
		if h != g || rep.Changed || rep.Refused != "" {
			t.Fatalf("%s: the aligned pair was changed: %v", pruned, rep)
		}
		dead := 0
		for _, l := range rep.Layers {
			dead += l.Dead
		}
		if dead == 0 {
			t.Errorf("%s: no dead neuron found", pruned)
		}

		shuffled := g.Clone()
		rng := rand.New(rand.NewPCG(1, 1))
		for k := range len(g.Layers) - 1 {
			reindex(shuffled, k, rng.Perm(g.Layers[k].Out()))
		}
		h, rep, err = Align(f, shuffled, opts)
		if err != nil || rep.Refused != "" {
			t.Fatalf("%s: %v %v", pruned, rep, err)
		}
		for k := range h.Layers {
			if !mat.Equal(h.Layers[k].W, g.Layers[k].W) {
				t.Fatalf("%s: layer %d of the aligned shuffled g is not g's", pruned, k)
			}
		}
		in := spec.Inputs{Box: prop.Box, Pairing: spec.SameInput}
		widths := make([]float64, 2)
		for i, net := range []*nn.Network{g, shuffled} {
			pb, err := bounds.Pair(f, net, in, bounds.Options{Method: bounds.MethodSymbolic})
			if err != nil {
				t.Fatal(err)
			}
			for _, iv := range pb.Output {
				widths[i] = max(widths[i], iv.Width())
			}
		}
		t.Logf("%s: %d dead neurons; %v; widest symbolic output difference enclosure %.4g as given, %.4g shuffled",
			pruned, dead, rep, widths[0], widths[1])
	}
}
