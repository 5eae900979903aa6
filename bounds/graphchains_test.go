package bounds

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGraphChainsSound checks the difference graph with its affine
// differences as chainDiff nodes (graphchains.go) against the NeuroDiff
// form it replaces in back-substitution, every row to the input: sampled
// pairs lie inside its enclosures, and its output bounds are the NeuroDiff
// form's or tighter (the same linear forms in real arithmetic, up to
// rounding).
func TestGraphChainsSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 31))
	for trial := range 12 {
		g1 := randGraph(rng)
		g2 := perturbed(rng, g1, 0.01)
		if trial%3 == 2 {
			g1 = residualCNN(rng, 1, 6, 6, []int{3, 4})
			g2 = perturbed(rng, g1, 0.003)
		}
		box := randBox(rng, g1.InputSize(), []float64{0.002, 0.05, 0.3}[trial%3])
		opts := DefaultGraphOptions()
		opts.Batch, opts.Workers = 1+trial%5, 1+trial%2
		for _, in := range graphPairings(box) {
			var pbs [2]*GraphPairBounds
			for c, chains := range []bool{false, true} {
				pg, err := newDiffGraph(g1, g2, in, false, chains)
				if err != nil {
					t.Fatal(err)
				}
				nodes := 0
				for _, node := range pg.g.Nodes {
					if _, ok := node.Op.(chainDiff); ok {
						nodes++
					}
				}
				if (nodes > 0) != chains {
					t.Fatalf("trial %d: chains %v, %d chainDiff nodes", trial, chains, nodes)
				}
				net, err := propagateGraph(context.Background(), pg.g, pg.box, opts, nil)
				if err != nil {
					t.Fatal(err)
				}
				pbs[c] = pg.diffBounds(net)
			}
			if err := pairSamplesInside(rng, g1, g2, in, pbs[1]); err != nil {
				t.Fatalf("trial %d, %v: %v", trial, in.Pairing, err)
			}
			for j, d := range pbs[1].Diff {
				old := pbs[0].Diff[j]
				tol := 1e-9 * (1 + old.Mag())
				if d.Hi > old.Hi+tol || d.Lo < old.Lo-tol || math.IsNaN(d.Lo) {
					t.Errorf("trial %d, %v, output %d: chains %v, NeuroDiff form %v", trial, in.Pairing, j, d, old)
				}
			}
		}
	}
}

// TestGraphReluRows checks the rows reluRowsNeeded skips: on CNNs whose
// ReLU outputs are read by quantisers and a max pool, every sampled value
// lies inside its enclosure, and the enclosures are those of
// back-substituting the skipped rows too (up to rounding), with fewer rows.
func TestGraphReluRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 32))
	for trial := range 8 {
		b := newGraphBuilder(rng, 2, 6, 6)
		x := b.quantise(b.conv(0, 4, 3, 1), 0.05, 128)
		x = b.quantise(b.relu(b.conv(x, 4, 3, 1)), 0.02, 0)
		x = b.maxPool(b.relu(b.conv(x, 5, 3, 1)), 2)
		b.dense(b.relu(b.conv(x, 3, 3, 1)), 4)
		g := b.g
		box := randBox(rng, g.InputSize(), []float64{0.005, 0.05}[trial%2])
		opts := DefaultGraphOptions()
		opts.Batch = 1 + trial%4
		net, err := GraphSingle(g, box, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.allRows = true
		all, _ := GraphSingle(g, box, opts)
		if net.Rows >= all.Rows {
			t.Errorf("trial %d: %d rows, %d without the ReLU rule", trial, net.Rows, all.Rows)
		}
		for _, p := range boxSamples(rng, box, 40) {
			for i := range p { // t (Hi - Lo) + Lo may round past Hi
				p[i] = min(max(p[i], box.Lo[i]), box.Hi[i])
			}
			vals, _ := g.EvalAll(p)
			if err := insideAll(net, vals); err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
		}
		for v, xs := range all.Values {
			for i, xi := range xs {
				if yi := net.Values[v][i]; !closeTo(xi.Lo, yi.Lo) || !closeTo(xi.Hi, yi.Hi) {
					t.Fatalf("trial %d: value %d entry %d: %v, without the ReLU rule %v", trial, v, i, yi, xi)
				}
			}
		}
	}
}
