package verify

import (
	"fmt"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/spec"
)

// TestForwardLeaves compares, on the frontier of the search (eps 0.05)
// after NNBOUND_FWD_NODES nodes (default 600) on ACAS Xu float16 prop 8 /
// 2_9 and prop 1 / 2_5, bounds.ForwardDiff without and with its mixed
// candidate against Pair's symbolic bound, all in units of eps on the
// target output. NNBOUND_LONG=1 only.
func TestForwardLeaves(t *testing.T) {
	nodes := longNodes(t, "NNBOUND_FWD_NODES", 600)
	for _, pn := range [][2]string{{"8", "2_9"}, {"1", "2_5"}} {
		const eps = 0.05
		d, res, inst := acasFrontier(t, pn[0], pn[1], eps, nodes)
		f, g := d.f, d.g
		fd, err := bounds.NewForwardDiff(f, g)
		if err != nil {
			t.Fatal(err)
		}
		var old, mixed, sym []float64
		better, settledOld, settledNew := 0, 0, 0
		for _, n := range d.queue {
			box := spec.Box{Lo: n.lo, Hi: n.hi}
			var b [2]float64
			for i, skip := range []bool{true, false} {
				fd.SkipMixed = skip
				out, err := fd.Bound(box)
				if err != nil {
					t.Fatal(err)
				}
				b[i] = out[inst.Target].Mag() / eps
			}
			pb, err := bounds.Pair(f, g, spec.Inputs{Box: box, Pairing: spec.SameInput}, bounds.Options{Method: bounds.MethodSymbolic})
			if err != nil {
				t.Fatal(err)
			}
			old, mixed, sym = append(old, b[0]), append(mixed, b[1]), append(sym, pb.Output[inst.Target].Mag()/eps)
			if b[1] < b[0]*(1-1e-9) {
				better++
			}
			if b[0] <= 1 {
				settledOld++
			}
			if b[1] <= 1 {
				settledNew++
			}
			if b[1] > b[0]*(1+1e-12) {
				t.Errorf("leaf %d: mixed %.6g looser than without %.6g", n.id, b[1], b[0])
			}
		}
		ratio := make([]float64, len(old))
		for i := range old {
			ratio[i] = mixed[i] / old[i]
		}
		t.Logf("prop %s net %s after %d nodes (bound %.4f), %d leaves: forward/eps median %s -> %s, symbolic Pair/eps median %s; mixed tighter on %d, ratio new/old %s; within eps %d -> %d",
			pn[0], pn[1], res.Nodes, res.Bound, len(old), quart(old), quart(mixed), quart(sym), better, quart(ratio), settledOld, settledNew)
	}
}

// quart formats the quartiles of v.
func quart(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	s := slices.Clone(v)
	slices.Sort(s)
	q := func(p float64) float64 { return s[int(p*float64(len(s)-1))] }
	return fmt.Sprintf("[%.3g %.3g %.3g]", q(0.25), q(0.5), q(0.75))
}
