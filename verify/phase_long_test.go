package verify

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/bounds/smear"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestPhaseSplitDiagnostic measures whether fixing the sign of a few of
// f's pre-activations settles the hard leaves of ACAS Xu float16 property
// 8 on net 2_9 (eps 0.05): it runs the search for NNBOUND_PHASE_NODES
// nodes (default 600), bounds again the frontier's leaves nearest to
// settling, and logs per leaf f's unstable neurons per layer, the bound in
// units of eps, the bound after halving the box (the interval smear's
// coordinate: the larger child's) and after fixing the phase of the best
// neurons of the last two hidden layers, each tried on its own (both
// phases bounded, the larger kept), then the k best together (all 2^k
// phase combinations). NNBOUND_LONG=1 only.
func TestPhaseSplitDiagnostic(t *testing.T) {
	nodes := longNodes(t, "NNBOUND_PHASE_NODES", 600)
	prop, net := "8", "2_9"
	if v := os.Getenv("NNBOUND_PHASE_INSTANCE"); v != "" { // e.g. 7/1_9
		if _, err := fmt.Sscanf(v, "%1s/%s", &prop, &net); err != nil {
			t.Fatal(err)
		}
	}
	d, res, _ := acasFrontier(t, prop, net, 0.05, nodes)
	t.Logf("prop %s net %s after %d nodes: bound %.4f", prop, net, res.Nodes, res.Bound)
	leaves := slices.Clone(d.queue)
	sort.Slice(leaves, func(i, j int) bool { return leaves[i].prio < leaves[j].prio })
	var sum []float64
	settled, diagnosed := 0, 0
	for _, n := range leaves[:min(60, len(leaves))] {
		if unst, ok := phaseDiagnose(t, d, n, diagnosed < 6); ok {
			settled++
			for k, v := range unst {
				if k >= len(sum) {
					sum = append(sum, 0)
				}
				sum[k] += float64(v)
			}
		} else {
			diagnosed++
		}
	}
	for k := range sum {
		sum[k] /= float64(max(settled, 1))
	}
	t.Logf("%d of the %d leaves nearest to settling settle on their own bound; f's unstable neurons per layer there, mean %.1f", settled, min(60, len(leaves)), sum)
}

// acasFrontier runs the search with the default options for at most
// nodes nodes on ACAS Xu float16 property prop on net (|g_t - f_t| <= eps
// for the target output t) and returns the decider, whose queue is the
// frontier, the result and the instance.
func acasFrontier(t *testing.T, prop, net string, eps float64, nodes int) (*decider, *Result, boundstest.ACASInstance) {
	t.Helper()
	inst := boundstest.ACASProperty(t, prop, net)
	f, g := inst.Networks(t)
	in := spec.Inputs{Box: spec.Box{Lo: inst.Lo, Hi: inst.Hi}}
	tol := spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{eps}, Outputs: []int{inst.Target}}
	opts := DefaultOptions()
	opts.MaxNodes = nodes
	d := newDecider(f, g, in, tol, opts)
	res, err := d.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return d, res, inst
}

// longNodes skips the test unless NNBOUND_LONG is set and returns the
// node limit given by the environment variable name, def if unset.
func longNodes(t *testing.T, name string, def int) int {
	t.Helper()
	if os.Getenv("NNBOUND_LONG") == "" {
		t.Skip("NNBOUND_LONG=1 runs it")
	}
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return n
	}
	return def
}

// phaseDiagnose logs the measurements of TestPhaseSplitDiagnostic for the
// leaf n if it does not settle on its own bound (and log), or returns f's
// unstable neurons per layer and true if it does.
func phaseDiagnose(t *testing.T, d *decider, n *node, log bool) ([]int, bool) {
	o := &outcome{mag: slices.Clone(n.mag)}
	if err := d.boundNode(context.Background(), n, o); err != nil || o.pb == nil {
		t.Fatal(err)
	}
	base := d.prio(o.mag, n.open)
	unst := unstable(t, o.pb.Net1, d.f)
	if len(o.open) == 0 {
		return unst, true
	}
	if !log {
		return nil, false
	}
	depth := 0
	for i := range n.lo {
		for w := d.in.Box.Hi[i] - d.in.Box.Lo[i]; w > 1.01*(n.hi[i]-n.lo[i]); w /= 2 {
			depth++
		}
	}
	prior := o.pb.Prior()
	// The input split, for comparison.
	inputSplit := -1.0
	if s := smear.Interval([2]*nn.Network{d.f, d.g}, o.pb, o.open, n.lo, n.hi); s != nil {
		if i := smear.ArgmaxHalvable(s, n.lo, n.hi); i >= 0 {
			for _, c := range d.children(n, o, i, new(int)) {
				c.prior = prior
				inputSplit = max(inputSplit, phaseBound(t, d, c, nil))
			}
		}
	}
	type cand struct {
		p     phase
		bound float64
	}
	var cands []cand
	last := len(d.f.Layers) - 1
	for k := last - 2; k < last; k++ {
		for i, iv := range o.pb.Net1.Pre[k] {
			if iv.Lo < 0 && iv.Hi > 0 {
				b := 0.0
				for _, act := range []bool{false, true} {
					b = max(b, phaseBound(t, d, n, []phase{{k, i, act}}, prior))
				}
				cands = append(cands, cand{phase{Layer: k, Neuron: i}, b})
			}
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].bound < cands[j].bound })
	var best []string
	for _, c := range cands[:min(5, len(cands))] {
		best = append(best, fmt.Sprintf("L%d/%d %.3f", c.p.Layer, c.p.Neuron, c.bound))
	}
	var joint []string
	for k := 2; k <= min(5, len(cands)); k++ {
		worst := 0.0
		for mask := range 1 << k {
			ps := make([]phase, k)
			for j := range k {
				ps[j] = cands[j].p
				ps[j].Active = mask>>j&1 == 1
			}
			worst = max(worst, phaseBound(t, d, n, ps, prior))
		}
		joint = append(joint, fmt.Sprintf("%d: %.3f", k, worst))
	}
	t.Logf("leaf %d depth %d: bound %.3f eps, input split %.3f; f unstable %v; one neuron (best 5 of %d) %v; the best k together %v",
		n.id, depth, base, inputSplit, unst, len(cands), best, joint)
	return nil, false
}

// phaseBound returns the bound, in units of eps, of node n with the phases
// ps fixed in the enclosures prior (n's own prior if ps is nil).
func phaseBound(t *testing.T, d *decider, n *node, ps []phase, prior ...*bounds.PairBounds) float64 {
	c := *n
	if ps != nil {
		c.prior = prior[0]
		for _, p := range ps {
			c.prior = withPhase(c.prior, p)
		}
	}
	c.prio = 1 // straight to the optimised bound
	o := &outcome{mag: slices.Clone(n.mag)}
	for k := range o.mag {
		o.mag[k] = math.Inf(1)
	}
	if err := d.boundNode(context.Background(), &c, o); err != nil {
		t.Fatal(err)
	}
	return d.prio(o.mag, n.open)
}

// phase fixes the sign of one pre-activation of the first network: in
// layer Layer, neuron Neuron, a <= 0 (Active false) or a >= 0 (Active
// true). Every input of a box lies on one side or the other, so a box
// bounded once per phase is covered.
type phase struct {
	Layer, Neuron int
	Active        bool
}

// unstable returns n.Unstable(f), failing t on an error.
func unstable(t testing.TB, n *bounds.Net, f *nn.Network) []int {
	t.Helper()
	u, err := n.Unstable(f)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// withPhase returns a copy of the enclosures prior (bounds.PairBounds.Prior
// of a box's bounds) with network 1's pre-activation of p clamped to p's
// side of 0. Bounds computed within it (bounds.Options.Within) hold on the
// inputs of the box whose pre-activation lies on that side: the
// relaxations built on the clamped enclosure are valid there, and the
// back-substitution's extremes over the whole box enclose its extremes
// over that part. Where the clamped enclosure is empty, no input lies on
// that side.
func withPhase(prior *bounds.PairBounds, p phase) *bounds.PairBounds {
	out := prior.Prior()
	iv := &out.Net1.Pre[p.Layer][p.Neuron]
	if p.Active {
		iv.Lo = math.Max(iv.Lo, 0)
		iv.Hi = math.Max(iv.Hi, 0)
	} else {
		iv.Lo = math.Min(iv.Lo, 0)
		iv.Hi = math.Min(iv.Hi, 0)
	}
	return out
}
