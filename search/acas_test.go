package search

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/spec"
)

// TestACASXuFloat16 searches |f'_t - f_t| on ACAS Xu float16 instances and
// compares with the attained differences the benchmark data records (found
// by a 35-minute search). By default one instance; all 84 with
// NNBOUND_LONG=1. Run with -v for the table.
func TestACASXuFloat16(t *testing.T) {
	insts := boundstest.ACASInstances(t)
	if os.Getenv("NNBOUND_LONG") == "" {
		insts = insts[:1]
	}
	var ratios []float64
	var worst time.Duration
	for _, inst := range insts {
		f, g := inst.Networks(t)
		c := make([]float64, f.OutputSize())
		c[inst.Target] = 1
		opts := DefaultOptions()
		start := time.Now()
		r, err := MaxError(context.Background(), f, g, spec.Inputs{Box: spec.Box{Lo: inst.Lo, Hi: inst.Hi}}, spec.Quantity{C: c}, opts)
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		worst = max(worst, el)
		theirs := max(-inst.AttainedLo, inst.AttainedHi)
		ratios = append(ratios, r.Error/theirs)
		t.Logf("prop %s net %s: found %.4g, data's search %.4g, ratio %.3f, %d evaluations, %v",
			inst.Prop, inst.Net, r.Error, theirs, r.Error/theirs, r.Evaluations, el.Round(time.Millisecond))
	}
	slices.Sort(ratios)
	t.Logf("ratio found / data's search: median %.3f, min %.3f; slowest %v", ratios[len(ratios)/2], ratios[0], worst.Round(time.Millisecond))
}
