package verify

import (
	"fmt"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/spec"
)

// TestForwardLeaves compares, on the frontier of the search (eps 0.05)
// after NNBOUND_FWD_NODES nodes (default 300) on ACAS Xu float16 prop 8 /
// 2_9 and prop 1 / 2_5, bounds.ForwardDiff with Pair's symbolic bound, in
// units of eps on the target output: whether the forward bound could
// decide leaves without Pair. NNBOUND_LONG=1 only.
func TestForwardLeaves(t *testing.T) {
	nodes := longNodes(t, "NNBOUND_FWD_NODES", 300)
	for _, pn := range [][2]string{{"8", "2_9"}, {"1", "2_5"}} {
		const eps = 0.05
		d, res, inst := acasFrontier(t, pn[0], pn[1], eps, nodes)
		fd, err := bounds.NewForwardDiff(d.f, d.g)
		if err != nil {
			t.Fatal(err)
		}
		var fwd, sym, ratio []float64
		within := 0
		for _, n := range d.queue {
			box := spec.Box{Lo: n.lo, Hi: n.hi}
			out, err := fd.Bound(box)
			if err != nil {
				t.Fatal(err)
			}
			pb, err := bounds.Pair(d.f, d.g, spec.Inputs{Box: box, Pairing: spec.SameInput}, bounds.Options{Method: bounds.MethodSymbolic})
			if err != nil {
				t.Fatal(err)
			}
			b, s := out[inst.Target].Mag()/eps, pb.Output[inst.Target].Mag()/eps
			fwd, sym, ratio = append(fwd, b), append(sym, s), append(ratio, b/s)
			if b <= 1 {
				within++
			}
		}
		t.Logf("prop %s net %s after %d nodes (bound %.4f), %d leaves: quartiles of forward/eps %s, symbolic Pair/eps %s, forward/symbolic %s; forward within eps on %d",
			pn[0], pn[1], res.Nodes, res.Bound, len(fwd), quartiles(fwd), quartiles(sym), quartiles(ratio), within)
	}
}

// quartiles formats the quartiles of v.
func quartiles(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	s := slices.Clone(v)
	slices.Sort(s)
	q := func(p float64) float64 { return s[int(p*float64(len(s)-1))] }
	return fmt.Sprintf("[%.3g %.3g %.3g]", q(0.25), q(0.5), q(0.75))
}
