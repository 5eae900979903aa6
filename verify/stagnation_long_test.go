package verify

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/bounds/smear"
	"github.com/nnbound/nnbound/spec"
)

// TestStagnationDiagnostic looks at the open leaves of an ACAS Xu float16
// instance at eps 0.01 (NNBOUND_STAG_INSTANCE, default 1/3_3) after
// NNBOUND_STAG_NODES nodes (default 4000): for the leaves of largest bound,
// their centre and each coordinate's width relative to the root (log2),
// the coordinate the split rule chooses, the larger child's bound for each
// coordinate halved (look-ahead, a diagnostic only), the largest sampled
// and attacked difference against the bound, and f's unstable neurons per
// layer; then, for the worst leaf that does not settle, the bound with
// bounds.Options varied, and the bound and the attack's value on
// boxes shrunk around the attack's worst point, to see whether the bound
// converges to the value or meets a floor. NNBOUND_LONG=1 only.
func TestStagnationDiagnostic(t *testing.T) {
	nodes := longNodes(t, "NNBOUND_STAG_NODES", 4000)
	prop, net := "1", "3_3"
	if v := os.Getenv("NNBOUND_STAG_INSTANCE"); v != "" { // e.g. 1/5_8
		if _, err := fmt.Sscanf(v, "%1s/%s", &prop, &net); err != nil {
			t.Fatal(err)
		}
	}
	d, res, _ := acasFrontier(t, prop, net, 0.01, nodes)
	t.Logf("prop %s net %s after %d nodes: bound %.5f, found %.5f at %.4f", prop, net, res.Nodes, res.Bound, res.Worst.Measure, res.Worst.X)
	leaves := slices.Clone(d.queue)
	sort.Slice(leaves, func(i, j int) bool { return leaves[i].prio > leaves[j].prio })
	var hist [8]int // leaves by bound, in tenths of eps above 1
	for _, n := range leaves {
		hist[min(7, max(0, int((n.prio-1)*10)))]++
	}
	t.Logf("%d open leaves; by bound (eps) [1,1.1), [1.1,1.2), ..., [1.7,inf): %v", len(leaves), hist)
	rng := rand.New(rand.NewPCG(1, 2))
	detailed := false
	for _, n := range leaves[:min(8, len(leaves))] {
		detailed = stagnationLeaf(t, d, n, rng, !detailed) || detailed
	}
}

// stagnationLeaf logs TestStagnationDiagnostic's measurements of leaf n
// and, if detail, the variants and the shrinking boxes; it reports whether
// it logged those (n does not settle when bounded).
func stagnationLeaf(t *testing.T, d *decider, n *node, rng *rand.Rand, detail bool) bool {
	o := &outcome{mag: slices.Clone(n.mag)}
	if err := d.boundNode(context.Background(), n, o); err != nil || o.pb == nil {
		t.Fatal(err)
	}
	bound := d.prio(o.mag, n.open)
	if len(o.open) == 0 {
		t.Logf("leaf %d settles when bounded again (%.3f eps)", n.id, bound)
		return false
	}
	unst := unstable(t, o.pb.Net1, d.f)
	rule := -1
	if s := smear.Difference(d.f, d.g, o.pb, o.open, n.lo, n.hi); s != nil {
		rule = smear.ArgmaxHalvable(s, n.lo, n.hi)
	}
	o.prior = o.pb.Prior()
	rel, ctr, look := make([]string, len(n.lo)), make([]string, len(n.lo)), make([]string, len(n.lo))
	for i := range n.lo {
		rel[i] = fmt.Sprintf("%.1f", math.Log2((n.hi[i]-n.lo[i])/(d.in.Box.Hi[i]-d.in.Box.Lo[i])))
		ctr[i] = fmt.Sprintf("%.4f", n.lo[i]/2+n.hi[i]/2)
		worse := 0.0
		for _, c := range d.children(n, o, i, new(int)) {
			b, _ := freshBound(t, d, c)
			worse = max(worse, b)
		}
		look[i] = fmt.Sprintf("%.3f", worse)
	}
	x, att := d.att.attackNode(n.warm, n.lo, n.hi, n.open, 50, 8, rng)
	t.Logf("leaf %d: bound %.3f eps, attack %.3f, sampled %.3f; centre %v, log2 width/root %v; rule halves %d; children's worse bound per coordinate %v; f unstable %v",
		n.id, bound, att, sampledRatio(d, n.lo, n.hi, n.open, rng), ctr, rel, rule, look, unst)
	if detail {
		stagnationVariants(t, d, n)
		stagnationShrink(t, d, n, x, rng)
	}
	return detail
}

// stagnationVariants logs the bound of leaf n with bounds.Options varied
// from the search's, and the widths of its enclosures with the ancestors'
// (Options.Within) against without.
func stagnationVariants(t *testing.T, d *decider, n *node) {
	variants := []struct {
		name string
		set  func(*bounds.Options)
	}{
		{"as the search", func(*bounds.Options) {}},
		{"no Within", func(o *bounds.Options) { o.Within = nil }},
		{"not by difference", func(o *bounds.Options) { o.SecondByDifference = false }},
		{"all rows", func(o *bounds.Options) { o.UnstableOnly = false }},
		{"Optimise.Differences", func(o *bounds.Options) { o.Optimise.Differences = true }},
		{"pair planes", func(o *bounds.Options) { o.PlainPairs = false }},
		{"20 steps", func(o *bounds.Options) { o.Optimise.Iterations = 20 }},
	}
	var ref *bounds.PairBounds
	for _, v := range variants {
		opts := d.pairOptions(bounds.MethodOptimised, n.prior, d.byDiff)
		v.set(&opts)
		pb, err := bounds.Pair(d.f, d.g, spec.Inputs{Box: spec.Box{Lo: n.lo, Hi: n.hi}}, opts)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := d.outputMags(context.Background(), pb, bounds.MethodOptimised, n.open)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("  %s: %.4f eps; f unstable %v, g unstable %v", v.name, d.prio(scatter(ms, n.open, d.m), n.open), unstable(t, pb.Net1, d.f), unstable(t, pb.Net2, d.g))
		if ref == nil {
			ref = pb
		} else if v.name == "no Within" {
			for _, e := range []struct {
				name string
				a, b [][]bounds.Interval
			}{{"f pre", ref.Net1.Pre, pb.Net1.Pre}, {"g pre", ref.Net2.Pre, pb.Net2.Pre}, {"diff pre", ref.DiffPre, pb.DiffPre},
				{"diff post", ref.DiffPost, pb.DiffPost}, {"prior f pre", n.prior.Net1.Pre, pb.Net1.Pre}, {"prior diff pre", n.prior.DiffPre, pb.DiffPre}} {
				ratio := make([]string, len(e.a))
				for k := range e.a {
					wa, wb := 0.0, 0.0
					for i := range e.a[k] {
						wa += e.a[k][i].Hi - e.a[k][i].Lo
						wb += e.b[k][i].Hi - e.b[k][i].Lo
					}
					ratio[k] = fmt.Sprintf("%.3g", wa/wb)
				}
				t.Logf("    %s: widths with Within / without, per layer %v", e.name, ratio)
			}
		}
	}
}

// stagnationShrink logs the bound and the attack's value on boxes of leaf
// n shrunk around x, 2^-1 to 2^-14 of its widths.
func stagnationShrink(t *testing.T, d *decider, n *node, x []float64, rng *rand.Rand) {
	for s := 1; s <= 14; s++ {
		c := *n
		c.lo, c.hi = slices.Clone(n.lo), slices.Clone(n.hi)
		for i := range c.lo {
			h := (n.hi[i] - n.lo[i]) / math.Exp2(float64(s+1))
			c.lo[i], c.hi[i] = max(n.lo[i], x[i]-h), min(n.hi[i], x[i]+h)
		}
		b, pb := freshBound(t, d, &c)
		_, a := d.att.attackNode(x, c.lo, c.hi, n.open, 20, 2, rng)
		t.Logf("  box 2^-%d of the leaf around the attack's point: bound %.4f eps, attack %.4f, gap %.2e eps; f unstable %v", s, b, a, b-a, unstable(t, pb.Net1, d.f))
	}
}

// freshBound returns the bound of node n in units of eps, and its last
// bounds, from n's prior but not its inherited bound, by every method of
// the search (the symbolic one included, so that the optimised one is not
// skipped after a loose interval bound).
func freshBound(t *testing.T, d *decider, n *node) (float64, *bounds.PairBounds) {
	c := *n
	c.prio = math.Inf(1)
	o := &outcome{mag: slices.Clone(n.mag)}
	for k := range o.mag {
		o.mag[k] = math.Inf(1)
	}
	if err := d.boundNode(context.Background(), &c, o); err != nil {
		t.Fatal(err)
	}
	return d.prio(o.mag, n.open), o.pb
}

// scatter returns the m-vector with vs[i] at ks[i], 0 elsewhere.
func scatter(vs []float64, ks []int, m int) []float64 {
	out := make([]float64, m)
	for i, k := range ks {
		out[k] = vs[i]
	}
	return out
}

// sampledRatio returns the largest ratio of 2000 uniform points of [lo, hi].
func sampledRatio(d *decider, lo, hi []float64, open []int, rng *rand.Rand) float64 {
	best := 0.0
	for range 2000 {
		r, _ := d.att.gradient(boundstest.Uniform(rng, lo, hi), open)
		best = max(best, r)
	}
	return best
}
