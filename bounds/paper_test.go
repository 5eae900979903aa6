package bounds_test

import (
	"context"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/search"
	"github.com/nnbound/nnbound/spec"
)

// quantCells returns the maximal intervals of [lo, hi] (float64 ends,
// closed) on which the quantiser q is constant, in increasing order.
func quantCells(q quantise.Format, lo, hi float64) [][2]float64 {
	h := q.Step() / 2
	var cells [][2]float64
	start := lo
	for k := math.Ceil(lo / h); k*h <= hi; k++ {
		j := k * h
		below, above := math.Nextafter(j, math.Inf(-1)), math.Nextafter(j, math.Inf(1))
		qj, _ := q.Quantise(j)
		qb, _ := q.Quantise(below)
		qa, _ := q.Quantise(above)
		switch {
		case qb != qj && below >= start: // j starts a new cell
			cells = append(cells, [2]float64{start, below})
			start = j
		case qj != qa && j >= start && j < hi: // j ends a cell
			cells = append(cells, [2]float64{start, j})
			start = above
		}
	}
	return append(cells, [2]float64{start, hi})
}

// pairBound returns the bound of |f2(q(x)) - f1(x)| over box from
// bounds.Pair, and over the quantiser's cells of box when split is set.
func pairBound(t *testing.T, f1, f2 *nn.Network, in spec.Inputs, m bounds.Method, split bool) float64 {
	t.Helper()
	boxes := [][2]float64{{in.Box.Lo[0], in.Box.Hi[0]}}
	if split {
		boxes = quantCells(in.Quant, in.Box.Lo[0], in.Box.Hi[0])
	}
	worst := 0.0
	for _, b := range boxes {
		in.Box = spec.Box{Lo: []float64{b[0]}, Hi: []float64{b[1]}}
		pb, err := bounds.Pair(f1, f2, in, bounds.Options{Method: m})
		if err != nil {
			t.Fatal(err)
		}
		worst = max(worst, -pb.Output[0].Lo, pb.Output[0].Hi)
	}
	return worst
}

// TestPaperTable2Ratio measures, on seeded instances of the paper's Table 2
// (one input, l hidden ReLU layers of 10, the network against its <inf,2>
// truncated copy with quantised input, box [-1, 1]), the ratio of the
// propagated output-difference bound to the exact largest error, on the
// whole box and split at the quantiser's cells. Run with -v for the
// medians; 10 instances per depth by default, 100 with NNBOUND_LONG=1.
func TestPaperTable2Ratio(t *testing.T) {
	q := quantise.Format{FracBits: 2, Rounding: quantise.Trunc}
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1}, Hi: []float64{1}}, Pairing: spec.QuantisedInput, Quant: q}
	if cells := quantCells(q, -1, 1); len(cells) != 9 {
		t.Fatalf("quantCells(-1, 1) = %v, want 9 cells", cells)
	}
	runs := 10
	if os.Getenv("NNBOUND_LONG") != "" {
		runs = 100
	}
	for _, l := range []int{1, 2, 3, 4} {
		for _, v := range []struct {
			m     bounds.Method
			split bool
		}{{bounds.MethodInterval, false}, {bounds.MethodSymbolic, false}, {bounds.MethodSymbolic, true}} {
			var ratios []float64
			var tb time.Duration
			for seed := range uint64(runs) {
				f1 := randnet.Paper(seed, 1, l, 10, 1)
				f2, err := quantise.Network(f1, quantise.Options{Weights: q, Biases: q})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				b := pairBound(t, f1, f2, in, v.m, v.split)
				tb += time.Since(start)
				r, err := search.MaxError(context.Background(), f1, f2, in, spec.Quantity{}, search.DefaultOptions())
				if err != nil {
					t.Fatal(err)
				}
				if !r.Exact {
					t.Fatalf("l=%d seed %d: search not exact", l, seed)
				}
				if b < r.Error*(1-1e-12) {
					t.Fatalf("l=%d seed %d: bound %v below the attained error %v", l, seed, b, r.Error)
				}
				if r.Error > 0 {
					ratios = append(ratios, b/r.Error)
				}
			}
			slices.Sort(ratios)
			t.Logf("l=%d %v split=%v: median bound/exact %.3f (min %.3f, max %.3g), %v per instance",
				l, v.m, v.split, ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1], tb/time.Duration(runs))
		}
	}
}
