package bounds

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// pairProp propagates bounds through two networks and their difference,
// layer by layer. Per layer k of equal widths it encloses
//
//	xi2 - xi1 = W2 (x2 - x1) + (W2 - W1) x1 + (b2 - b1)
//	          = W1 (x2 - x1) + (W2 - W1) x2 + (b2 - b1)
//
// by interval arithmetic, intersects with Pre2 - Pre1, tightens Pre1 and
// Pre2 with each other through the difference, and encloses phi(xi2) -
// phi(xi1) by the mean value theorem, intersected with Post2 - Post1.
//
// With symbolic set, each network's pre-activations are also bounded by
// back-substitution (symbolic.go), and, while the two networks have had
// equal widths from the input up, the difference is bounded by
// back-substitution through the joint variables (z1^j, delta^j) of each
// layer j below, where z1 = phi1(xi1) and delta = phi2(xi2) - phi1(xi1), with
// the difference planes of diffrelax.go and the substitution
//
//	xi1^j = W1 z1^{j-1} + b1,   xi2^j - xi1^j = (W2 - W1) z1^{j-1} + W2 delta^{j-1} + (b2 - b1).
type pairProp struct {
	f1, f2 *nn.Network
	m1, m2 lowered // f1 and f2 with their noise (quantised.go)
	pb     *PairBounds
	sym    bool
	opt    *OptimiseSettings // slope optimisation, nil for none
	goal   *Goal             // Options.Goal with slope optimisation, or nil
	// plainPairs is Options.PlainPairs: no per-row ReLU pair planes.
	plainPairs bool
	// within holds enclosures valid on a box containing this one
	// (Options.Within, within.go), or nil.
	within *PairBounds
	// byDiff is Options.SecondByDifference.
	byDiff bool
	// Symbolic state: each network's, and per layer the joint relaxation
	// and substitution of the difference.
	sym1, sym2 *symNet
	jointStep  []stepRelax
	jointPairs [][]*pairNeuron // per level, the ReLU neurons relaxed per row (relupair.go)
	jointFree  []freeLines
	jointW     []*mat.Dense
	jointConv  []*jointConv // in place of jointW for structured layers
	jointB     [][]float64
	jointNoise [][]float64 // [r1; 0]: the noise of xi1 (that of the difference is in diffs)
	diffs      []*layerDiff
	// jointCompact caches the joint levels of the slope optimiser;
	// jointAbs, per level, |W| times the bounds below it.
	jointCompact *levelCache
	jointAbs     []absProduct
	packs        *chainPacks // shared with Options.Within's propagation
	chain        int         // layers 0..chain-1 have equal widths in both networks
	// fixedX2[i] is the constant x2_i when the input quantiser is constant
	// on the box's coordinate i (NaN otherwise); nil if none is.
	fixedX2 []float64
}

// propagatePair returns the bounds of f1 and f2 on in, or ctx's error
// (wrapped) once ctx is done, looked at before every layer.
func propagatePair(ctx context.Context, m1, m2 lowered, in spec.Inputs, opts Options) (*PairBounds, error) {
	f1, f2 := m1.f, m2.f
	x1, x2, dIn := inputBoxes(in)
	d1, d2 := len(f1.Layers), len(f2.Layers)
	common := min(d1, d2)
	pp := &pairProp{f1: f1, f2: f2, m1: m1, m2: m2, plainPairs: opts.PlainPairs, jointNoise: make([][]float64, common), sym: opts.Method >= MethodSymbolic, opt: opts.optimiser(),
		pb: &PairBounds{
			Net1:   &Net{In: x1, Pre: make([][]Interval, d1), Post: make([][]Interval, d1)},
			Net2:   &Net{In: x2, Pre: make([][]Interval, d2), Post: make([][]Interval, d2)},
			DiffIn: dIn, DiffPre: make([][]Interval, common), DiffPost: make([][]Interval, common),
		},
		jointStep: make([]stepRelax, common), jointPairs: make([][]*pairNeuron, common), jointFree: make([]freeLines, common), jointW: make([]*mat.Dense, common), jointB: make([][]float64, common),
		jointConv: make([]*jointConv, common),
		diffs:     make([]*layerDiff, common), jointAbs: make([]absProduct, common), jointCompact: &levelCache{},
	}
	pp.sym1, pp.sym2 = newSymNet(m1, pp.pb.Net1), newSymNet(m2, pp.pb.Net2)
	pp.sym1.unstableOnly, pp.sym2.unstableOnly = opts.UnstableOnly, opts.UnstableOnly
	pp.sym1.outputs, pp.sym2.outputs = opts.Outputs, opts.Outputs
	pp.within, pp.byDiff = opts.Within, opts.SecondByDifference
	pp.packs = chainPacksFor(opts.Within, f1, f2)
	pp.pb.packs = pp.packs
	for j := range pp.sym1.abs {
		pp.sym1.abs[j].pack = &pp.packs.net1[j]
	}
	for j := range pp.sym2.abs {
		pp.sym2.abs[j].pack = &pp.packs.net2[j]
	}
	for j := range pp.jointAbs {
		pp.jointAbs[j].pack = &pp.packs.joint[j]
	}
	if in.Pairing == spec.QuantisedInput {
		pp.fixedX2 = fixedInputs(in)
	}
	for pp.chain < common && f1.Layers[pp.chain].Out() == f2.Layers[pp.chain].Out() &&
		sameKind(f1.Layers[pp.chain], f2.Layers[pp.chain]) {
		pp.chain++
	}
	if opts.Method == MethodOptimised {
		pp.goal = opts.Goal
	}
	for k := range max(d1, d2) {
		if pp.checkpoint(k) {
			c := pp.fork()
			if err := c.layersFrom(ctx, k); err != nil {
				return nil, err
			}
			if pp.stopAt(c.pb) {
				return c.pb, nil
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("bounds: stopped before layer %d: %w", k, err)
		}
		pp.layer(k)
	}
	pp.finish()
	if pp.goal != nil && pp.opt != nil && pp.goalMet(pp.pb) {
		pp.opt = nil // the margins need no optimised slopes
	}
	return pp.pb, nil
}

// layersFrom bounds the layers k, k+1, ... and finishes the bounds,
// unless ctx is done first.
func (pp *pairProp) layersFrom(ctx context.Context, k int) error {
	for ; k < max(len(pp.f1.Layers), len(pp.f2.Layers)); k++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("bounds: stopped before layer %d: %w", k, err)
		}
		pp.layer(k)
	}
	pp.finish()
	return nil
}

// finish sets the output differences of pp.pb after the last layer.
func (pp *pairProp) finish() {
	pb := pp.pb
	pb.prop = pp
	d1, d2 := len(pp.f1.Layers), len(pp.f2.Layers)
	last := min(d1, d2) - 1
	if d1 == d2 && pb.DiffPost[last] != nil {
		pb.Output = append([]Interval(nil), pb.DiffPost[last]...)
	} else {
		pb.Output = subAll(pb.Net2.Post[d2-1], pb.Net1.Post[d1-1])
	}
}

// layer propagates layer k.
func (pp *pairProp) layer(k int) {
	f1, f2, pb := pp.f1, pp.f2, pp.pb
	n1, n2 := pb.Net1, pb.Net2
	var l1, l2 *nn.Layer
	if k < len(f1.Layers) {
		l1 = &f1.Layers[k]
	}
	if k < len(f2.Layers) {
		l2 = &f2.Layers[k]
	}
	same := l1 != nil && l2 != nil && l1.Out() == l2.Out()
	// Where the widths agree, network 2's slopes are optimised only after
	// its bounds have been tightened through network 1's and the
	// difference, and only for the neurons then still unstable: for a
	// close copy (float16, quantised) that is few of them.
	var w1, w2, wd, wdp [][]Interval // the enclosures of Options.Within
	if w := pp.within; w != nil {
		w1, w2, wd, wdp = w.Net1.Pre, w.Net2.Pre, w.DiffPre, w.DiffPost
	}
	if l1 != nil {
		n1.Pre[k] = pp.preBounds(pp.sym1, k, pp.opt, w1, true)
	}
	if l2 != nil && !same {
		n2.Pre[k] = pp.preBounds(pp.sym2, k, pp.opt, w2, true)
	} else if l2 != nil {
		n2.Pre[k] = pp.preBounds(pp.sym2, k, nil, w2, !pp.byDiff)
	}
	if same {
		pb.DiffPre[k] = subAll(n2.Pre[k], n1.Pre[k])
		var dp1, dp2 []Interval // outputs of the layer below (or inputs)
		dp := pb.DiffIn
		if k == 0 {
			dp1, dp2 = n1.In, n2.In
		} else {
			dp1, dp2, dp = n1.Post[k-1], n2.Post[k-1], pb.DiffPost[k-1]
		}
		if dp != nil {
			dl := pp.packs.layerDiff(k, *l1, *l2, pp.m1.layerNoise(k), pp.m2.layerNoise(k))
			pp.diffs[k] = dl
			if pp.sym && k < pp.chain && l1.Conv == nil { // for diffTarget before jointRelax
				pp.jointW[k] = pp.packs.jointMatrix(k, func() *mat.Dense { return jointMatrix(*l1, *l2, dl) })
			}
			intersectAll(pb.DiffPre[k], dl.applyLayer(*l2, dp, dp1))
			if !allZero(dp) || !slices.Equal(dp1, dp2) { // otherwise the same enclosure again
				intersectAll(pb.DiffPre[k], dl.applyLayer(*l1, dp, dp2))
			}
		}
		withinLayer(pb.DiffPre[k], wd, k)
		if pp.sym && k < pp.chain && k > 0 {
			pp.tightenDiff(k)
		}
		tightenPre(n1.Pre[k], n2.Pre[k], pb.DiffPre[k])
		if pp.sym && pp.byDiff && k > 0 {
			pp.tightenShadows(k)
		}
		if pp.sym && pp.opt != nil && k > 0 && !pp.byDiff {
			pp.sym2.optimise(k, *pp.opt)
			tightenPre(n1.Pre[k], n2.Pre[k], pb.DiffPre[k])
		}
	}
	if l1 != nil {
		pp.m1.tightenGrid(k, n1.Pre[k])
	}
	if l2 != nil {
		pp.m2.tightenGrid(k, n2.Pre[k])
	}
	if same && (pp.m1.stairs != nil || pp.m2.stairs != nil) {
		intersectAll(pb.DiffPre[k], subAll(n2.Pre[k], n1.Pre[k]))
		tightenPre(n1.Pre[k], n2.Pre[k], pb.DiffPre[k])
	}
	if l1 != nil {
		n1.Post[k] = images(l1.Act, n1.Pre[k])
		pp.m1.tightenPost(k, n1.Pre[k], n1.Post[k])
	}
	if l2 != nil {
		n2.Post[k] = images(l2.Act, n2.Pre[k])
		pp.m2.tightenPost(k, n2.Pre[k], n2.Post[k])
	}
	if pp.sym {
		if l1 != nil {
			pp.sym1.relax(k)
		}
		if l2 != nil {
			pp.sym2.relax(k)
		}
	}
	if !same {
		return
	}
	d := subAll(n2.Post[k], n1.Post[k])
	for i := range d {
		if a, ok := sameAct(l1.Act, l2.Act, n1.Pre[k][i], n2.Pre[k][i]); ok {
			d[i] = d[i].Intersect(diffImage(a, n1.Pre[k][i], n2.Pre[k][i], pb.DiffPre[k][i]))
		} else if img, ok := mixedDiffImage(l1.Act, l2.Act, n1.Pre[k][i], pb.DiffPre[k][i]); ok {
			d[i] = d[i].Intersect(img)
		}
	}
	withinLayer(d, wdp, k)
	pb.DiffPost[k] = d
	if pp.sym && k < pp.chain {
		pp.sliceDiff(k)
		pp.jointRelax(k, *l1, *l2)
	}
}

// preBounds returns the pre-activation bounds of layer k of s's network:
// interval arithmetic on the layer below, intersected with those of prior
// (Options.Within) and, when symbolic and back, with back-substitution
// (and, with opt, optimised slopes).
func (pp *pairProp) preBounds(s *symNet, k int, opt *OptimiseSettings, prior [][]Interval, back bool) []Interval {
	net := s.net
	below := net.In
	if k > 0 {
		below = net.Post[k-1]
	}
	net.Pre[k] = affine(s.f.Layers[k], below, s.m.layerNoise(k))
	withinLayer(net.Pre[k], prior, k)
	if pp.sym && back && k > 0 {
		s.tighten(k, opt)
	}
	return net.Pre[k]
}

// jointRelax builds, for layer k, the relaxation of the joint variables
// (z1, delta) in terms of (xi1, xi2 - xi1), tightens DiffPost[k] with it,
// and the substitution matrix of the layer:
//
//	[xi1; xi2 - xi1] = [[W1, 0], [W2 - W1, W2]] [z1; delta] + [b1; b2 - b1].
func (pp *pairProp) jointRelax(k int, l1, l2 nn.Layer) {
	pb := pp.pb
	n := l1.Out()
	s := stepRelax{Lower: make([]affineBound, 2*n), Upper: make([]affineBound, 2*n), cols: 2 * n}
	r1, r2 := pp.sym1.rels[k], pp.sym2.rels[k]
	var polys [][][2]float64 // the joint ranges of (xi1, xi2 - xi1) of layer k > 0 (relupoly.go)
	pairs := l1.Act.Kind == nn.ReLU && l2.Act.Kind == nn.ReLU && !pp.plainPairs
	if k > 0 && pairs {
		polys = pp.jointPolygons(k, l1)
	}
	for i := range n {
		s.Lower[i] = affineBound{[]term{{i, r1.Lower[i].A}}, r1.Lower[i].C}
		s.Upper[i] = affineBound{[]term{{i, r1.Upper[i].A}}, r1.Upper[i].C}
		pre1, pre2, dd := pb.Net1.Pre[k][i], pb.Net2.Pre[k][i], pb.DiffPre[k][i]
		lo, hi := diffPlanes(l1.Act, l2.Act, pre1, pre2, dd, pb.DiffPost[k][i],
			r1.Lower[i], r1.Upper[i], r2.Lower[i], r2.Upper[i])
		s.Lower[n+i] = affineBound{[]term{{i, lo.A}, {n + i, lo.B}}, lo.C}
		s.Upper[n+i] = affineBound{[]term{{i, hi.A}, {n + i, hi.B}}, hi.C}
		pb.DiffPost[k][i] = pb.DiffPost[k][i].Intersect(Interval{planeRange(lo, pre1, dd).Lo, planeRange(hi, pre1, dd).Hi})
		if pairs {
			var pts [][2]float64
			if k == 0 && pp.plainSameInput() && l1.Conv == nil {
				pts = firstLayerPolygon(i, pre1, dd, l1, pp.diffs[0], pb.Net1.In)
			} else if polys != nil {
				pts = polys[i]
			}
			if p := newPairNeuronOn(i, pre1, dd, r1.Lower[i], r1.Upper[i], lo, hi, pts); p != nil {
				pp.jointPairs[k] = append(pp.jointPairs[k], p)
			}
		}
	}
	pp.jointStep[k] = s.packed()
	pp.jointFree[k] = jointFreeLines(&pp.sym1.free[k])
	dl := pp.diffs[k]
	pp.jointB[k] = append(append([]float64(nil), l1.B...), dl.dB...)
	if r1 := pp.m1.layerNoise(k); r1 != nil {
		pp.jointNoise[k] = append(append([]float64(nil), r1...), make([]float64, n)...)
	}
	if l1.Conv != nil {
		pp.jointConv[k] = &jointConv{c1: l1.Conv, dk: l1.Conv.WithKernel(dl.dW), c2: l2.Conv}
		return
	}
	if pp.jointW[k] == nil {
		pp.jointW[k] = jointMatrix(l1, l2, dl)
	}
}

// jointMatrix returns the substitution matrix of a joint level of dense
// layers l1, l2 with the difference dl, [[W1, 0], [W2 - W1, W2]].
func jointMatrix(l1, l2 nn.Layer, dl *layerDiff) *mat.Dense {
	n, m := l1.Out(), l1.In()
	w := mat.NewDense(2*n, 2*m, nil)
	w.Slice(0, n, 0, m).(*mat.Dense).Copy(l1.W)
	w.Slice(n, 2*n, m, 2*m).(*mat.Dense).Copy(l2.W)
	w.Slice(n, 2*n, 0, m).(*mat.Dense).Copy(mat.NewDense(n, m, dl.dW))
	return w
}

// sameKind reports whether two layers are both dense or both structured
// with the same geometry, so that their difference substitutes jointly.
func sameKind(l1, l2 nn.Layer) bool {
	if l1.Conv == nil || l2.Conv == nil {
		return l1.Conv == nil && l2.Conv == nil
	}
	return l1.Conv.SameGeometry(l2.Conv)
}

// fixedInputs returns, per input coordinate, the value of the quantiser
// where it is constant on the box (NaN elsewhere), or nil if it is nowhere.
func fixedInputs(in spec.Inputs) []float64 {
	out := make([]float64, in.Box.Dim())
	any := false
	for i := range out {
		lo, _ := in.Quant.Quantise(in.Box.Lo[i])
		hi, _ := in.Quant.Quantise(in.Box.Hi[i])
		out[i] = math.NaN()
		if lo == hi {
			out[i], any = lo, true
		}
	}
	if !any {
		return nil
	}
	return out
}
