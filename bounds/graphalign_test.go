package bounds

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// withQuantisers returns a copy of g with quantisers inserted after the
// input and after random nodes, each reader of a value reading the
// quantised one or, at random, the original. Each quantiser has a coarse
// integer range [0, 15] that covers about the middle half of the range the
// value takes on samples of box, so that it saturates at both ends.
func withQuantisers(rng *rand.Rand, g *nn.Graph, box spec.Box) *nn.Graph {
	lo, hi := make([]float64, len(g.Nodes)+1), make([]float64, len(g.Nodes)+1)
	for v := range lo {
		lo[v], hi[v] = math.Inf(1), math.Inf(-1)
	}
	for _, x := range boxSamples(rng, box, 20) {
		vals, _ := g.EvalAll(x)
		for v, xs := range vals {
			for _, s := range xs {
				lo[v], hi[v] = min(lo[v], s), max(hi[v], s)
			}
		}
	}
	out := &nn.Graph{InputShape: slices.Clone(g.InputShape)}
	moved := make([]int, len(g.Nodes)+1) // value v of g is value moved[v] of out
	quant := make([]int, len(g.Nodes)+1) // its quantised copy, or -1
	insert := func(v int) {
		quant[v] = -1
		if rng.IntN(3) == 0 || !(hi[v] > lo[v]) {
			return
		}
		s := (hi[v] - lo[v]) / 2 / 15
		z := int64(math.Round(-(lo[v]+hi[v])/2/s)) + 7
		q := &nn.Quantiser{Scale: []float64{s}, Zero: []int64{min(max(z, 0), 15)}, Lo: 0, Hi: 15}
		out.Nodes = append(out.Nodes, nn.Node{Op: &nn.Quantise{Q: q}, Inputs: []int{moved[v]}, Shape: slices.Clone(g.Shape(v))})
		quant[v] = len(out.Nodes)
	}
	insert(0)
	for k, n := range g.Nodes {
		ins := make([]int, len(n.Inputs))
		for i, v := range n.Inputs {
			ins[i] = moved[v]
			if quant[v] >= 0 && rng.IntN(4) != 0 {
				ins[i] = quant[v]
			}
		}
		out.Nodes = append(out.Nodes, nn.Node{Op: n.Op, Inputs: ins, Shape: slices.Clone(n.Shape), Name: n.Name})
		moved[k+1] = len(out.Nodes)
		if k+1 < len(g.Nodes) {
			insert(k + 1)
		}
	}
	if err := out.Validate(); err != nil {
		panic(err)
	}
	return out
}

// TestGraphAlignSound bounds pairs of a graph and a perturbed copy, each
// with quantisers of its own inserted (so some quantisers are paired with
// quantisers, others with the identity), through the aligned difference
// graph, and checks sampled output differences and every value of both
// graphs against their enclosures.
func TestGraphAlignSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for trial := range 16 {
		var g *nn.Graph
		if trial%2 == 0 {
			g = randGraph(rng)
		} else {
			g = residualCNN(rng, 1, 4, 4, []int{2, 3})
		}
		box := randBox(rng, g.InputSize(), []float64{0.01, 0.1, 0.5}[trial%3])
		g2 := perturbed(rng, g, 0.01)
		g1 := g
		if trial%4 < 2 {
			g1 = withQuantisers(rng, g, box)
		}
		g2 = withQuantisers(rng, g2, box)
		opts := graphMethods[trial%len(graphMethods)]
		opts.AlignQuantisers = true
		for _, in := range graphPairings(box) {
			if _, err := newDiffGraph(g1, g2, in, true, true); err != nil {
				t.Fatalf("trial %d: not aligned: %v", trial, err)
			}
			pb, err := GraphPair(g1, g2, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := pairSamplesInside(rng, g1, g2, in, pb); err != nil {
				t.Fatalf("trial %d, %v: %v", trial, in.Pairing, err)
			}
		}
	}
}

// TestGraphAlignChoice checks that quantisers of one graph only need
// GraphOptions.AlignQuantisers, and that graphs differing otherwise are
// not aligned.
func TestGraphAlignChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	g := residualCNN(rng, 1, 4, 4, []int{2})
	box := randBox(rng, g.InputSize(), 0.1)
	in := spec.Inputs{Box: box}
	gq := withQuantisers(rng, g, box)
	if _, err := newDiffGraph(g, gq, in, false, true); err == nil {
		t.Error("quantisers of one graph only aligned without being asked to")
	}
	if _, err := newDiffGraph(g, gq, in, true, true); err != nil {
		t.Errorf("quantisers of one graph only: %v", err)
	}
	flat := &nn.Graph{InputShape: g.InputShape, Nodes: slices.Clone(g.Nodes)}
	for k, n := range flat.Nodes {
		if _, ok := n.Op.(nn.Act); ok {
			flat.Nodes[k].Shape = []int{g.Size(k + 1)}
		}
	}
	if err := flat.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := newDiffGraph(g, flat, in, false, true); err != nil {
		t.Errorf("a copy with its activations flattened: %v", err)
	}
	other := residualCNN(rng, 1, 4, 4, []int{2, 2})
	if _, err := newDiffGraph(g, other, in, true, true); err == nil {
		t.Error("graphs of other structures aligned")
	}
}

// TestPairQuantRoundingCost checks that a quantiser of one graph only,
// away from saturation, moves the difference by at most its rounding
// radius whatever the range of z: planes d - r and d + r.
func TestPairQuantRoundingCost(t *testing.T) {
	q := &nn.Quantiser{Scale: []float64{0.05}, Zero: []int64{128}, Lo: 0, Hi: 255}
	z := []Interval{{-3, 2.5}}
	d := []Interval{{-0.1, 0.2}}
	for _, op := range []pairQuant{{nil, q}, {q, nil}} {
		rel := nodeRelax(op, [][]Interval{z, d})
		r, _, _ := quantNoise(q, 0)
		lo, up := rel.low[0], rel.up[0]
		if lo.A != 0 || rel.lowB[0] != 1 || up.A != 0 || rel.upB[0] != 1 || lo.C < -r*(1+1e-9) || up.C > r*(1+1e-9) {
			t.Errorf("%v: planes %v + %v d and %v + %v d, want d -/+ %v", op, lo, rel.lowB[0], up, rel.upB[0], r)
		}
	}
}
