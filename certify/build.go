package certify

import (
	"context"
	"fmt"
	"slices"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/qc"
	"github.com/nnbound/nnbound/spec"
)

// regionBounds are sound bounds of both networks on a region.
type regionBounds struct {
	Nets              [2]*bounds.Net
	DiffPre, DiffPost [][]bounds.Interval
	// Output[j] encloses f2_j(x2) - f1_j(x1) on the region.
	Output []bounds.Interval
	// Margin encloses C^T (f2(x2) - f1(x1)) when Options.C is set (by
	// bounds.PairBounds.Margin, tighter than combining Output).
	Margin *bounds.Interval
	// Norm2, when positive, bounds ||f2(x2) - f1(x1)||_2 on the region
	// (bounds.PairBounds.Norm2: over the pieces of a split box, tighter
	// than the norm of Output).
	Norm2 float64
}

// prior returns the enclosures of rb that hold on every part of the
// region r (bounds.Options.Within), or nil when rb has none of a pair.
func (rb *regionBounds) prior(r *region) *bounds.PairBounds {
	if r.Pairing != spec.SameInput || rb.Nets[0] == nil || rb.Nets[1] == nil || rb.DiffPre == nil || rb.DiffPost == nil {
		return nil
	}
	return &bounds.PairBounds{Net1: &bounds.Net{Pre: rb.Nets[0].Pre}, Net2: &bounds.Net{Pre: rb.Nets[1].Pre},
		DiffPre: rb.DiffPre, DiffPost: rb.DiffPost}
}

// boundsOf computes the bounds of f1, f2 on r with Options.Bounds and
// Split. The paper set uses them only to scale its coordinates and
// objective and as the fallback bound, so it keeps symbolic bounds on the
// whole box: its SDP stays the one the tests compare with CSDP's. Once
// ctx is done the pass stops with ctx's error (bounds.PairContext,
// bounds.SingleContext): a pass so cut yields no bounds.
func boundsOf(ctx context.Context, f1, f2 *nn.Network, r *region, o *task) (*regionBounds, error) {
	return boundsAfter(ctx, f1, f2, r, o, nil)
}

// boundsAfter is boundsOf given first, the bounds of r by the first pass
// of rootPass (firstTask), or nil: where boundsOf's symbolic tightening
// (tightenSymbolic) would compute that same pass again, it takes first's.
func boundsAfter(ctx context.Context, f1, f2 *nn.Network, r *region, o *task, first *regionBounds) (*regionBounds, error) {
	opts := bounds.Options{Method: o.Bounds, Split: o.splitFor(r.Box1), RequantSlack: o.RequantSlack, Optimise: o.Optimise}
	if o.propOnly {
		// A piece of the cheap refinement: the refinement splits instead
		// of Split, and the parent's bounds hold on the piece.
		opts.PlainPairs, opts.UnstableOnly, opts.Within = true, true, r.within
		// A piece's bound is its margin's (or the outputs' it weighs),
		// and it feeds no SDP: the other outputs need no tightening.
		if o.q.C != nil {
			opts.Outputs = weighed(o.q, f1.OutputSize())
		}
		if o.settling {
			// Past the target the pieces are small and the plain
			// pairs' slack is what keeps them above the error found
			// (4/3_4 of ACAS Xu: 4.6 % at 628 pieces, 1.3 % with the
			// joint pairs, for the same CPU).
			opts.PlainPairs = false
		}
		if opts.Optimise.Iterations == 0 {
			opts.Optimise.Iterations = cheapIterations
			if f1.Quantised() || f2.Quantised() {
				opts.Optimise.Iterations = cheapIterationsQuantised
			}
		}
	}
	if o.QC == QCPaper {
		opts = bounds.Options{Method: bounds.MethodSymbolic, RequantSlack: o.RequantSlack}
	}
	if rb, err := inputCases(ctx, f1, f2, r, o, opts); rb != nil || err != nil {
		return rb, err
	}
	single := r.Pairing == spec.QuantisedInput && r.allFixed() ||
		r.Pairing == spec.Independent && !sameBox(r.Box1, r.Box2)
	if single {
		b1, err := bounds.SingleContext(ctx, f1, r.Box1, opts)
		if err != nil {
			return nil, err
		}
		b2, err := bounds.SingleContext(ctx, f2, r.Box2, opts)
		if err != nil {
			return nil, err
		}
		return &regionBounds{Nets: [2]*bounds.Net{b1, b2}, Output: outputDiff(b1, b2)}, nil
	}
	pb, err := bounds.PairContext(ctx, f1, f2, spec.Inputs{Box: r.Box1, Pairing: r.Pairing, Quant: o.in.Quant}, opts)
	if err != nil {
		return nil, err
	}
	n2, err := norm2Of(f1, f2, pb, o.q)
	if err != nil {
		return nil, err
	}
	rb := &regionBounds{Nets: [2]*bounds.Net{pb.Net1, pb.Net2}, DiffPre: pb.DiffPre, DiffPost: pb.DiffPost, Output: pb.Output,
		Norm2: n2}
	if o.q.C != nil {
		m, err := pb.Margin(o.q.C)
		if err != nil {
			return nil, err
		}
		rb.Margin = &m
	}
	if opts.Method == bounds.MethodOptimised && !f1.Quantised() && !f2.Quantised() && !o.propOnly {
		if opts.Split > 1 {
			first = nil // first's pass is not split
		}
		if err := rb.tightenSymbolic(ctx, f1, f2, r, o, opts, first); err != nil {
			return nil, err
		}
	}
	return rb, nil
}

// rootPass returns the bounds of the root region r by boundsOf, the first
// certificate of sdpBound, infBound and intervalBound, and StopNone; or,
// when ctx or Refine.TimeBudget cut that pass, the bounds of a first pass
// cheap beside it (firstTask: symbolic slopes, no split, where the full
// pass optimises the slopes on the pieces of a split box) and why the
// full pass was cut (StopCancelled or StopBudget). A cut pass yields no bound: the first
// pass's stands. The first pass runs before the full one, to its end
// whatever ctx and the budget; the full pass then reuses it where it
// would compute it again (boundsAfter), so that an uncut run does the
// same work and finds the same bounds, bit for bit. Where the first pass
// would be the full one, or nothing can cut the full pass (no budget, a
// ctx never done), the full pass alone runs, to its end.
func rootPass(ctx context.Context, f1, f2 *nn.Network, r *region, o *task) (*regionBounds, Stop, error) {
	whole := func() (*regionBounds, Stop, error) {
		rb, err := boundsOf(context.WithoutCancel(ctx), f1, f2, r, o)
		return rb, StopNone, err
	}
	fo, cheaper := firstTask(r, o)
	if !cheaper || (o.deadline.IsZero() && ctx.Done() == nil) {
		return whole()
	}
	first, err := boundsOf(context.WithoutCancel(ctx), f1, f2, r, &fo)
	if err != nil {
		return whole() // no first bound: the full pass is the certificate
	}
	bctx, cancel := o.budgetContext(ctx)
	defer cancel()
	rb, err := boundsAfter(bctx, f1, f2, r, o, first)
	switch {
	case err == nil || bctx.Err() == nil:
		return rb, StopNone, err
	case ctx.Err() != nil:
		return first, StopCancelled, nil
	}
	return first, StopBudget, nil
}

// firstTask returns the task of rootPass's first pass on r: o with
// symbolic slopes (or intervals, if o asks for them) and no split; and
// whether that pass is cheaper than o's own (false where it is the same:
// o asks for no more, or for the paper's QC set, whose bounds are those
// anyway).
func firstTask(r *region, o *task) (task, bool) {
	fo := *o
	fo.Bounds, fo.Split = min(o.Bounds, bounds.MethodSymbolic), 0
	return fo, o.QC != QCPaper && (o.Bounds > fo.Bounds || o.splitFor(r.Box1) > 1)
}

// weighed returns the outputs (of n) that the quantity q weighs: those of
// its nonzero weights C, or all of them.
func weighed(q spec.Quantity, n int) []int {
	var ks []int
	for k := range n {
		if q.C == nil || q.C[k] != 0 {
			ks = append(ks, k)
		}
	}
	return ks
}

// tightenSymbolic intersects the output enclosures of rb, computed with
// the optimised method, with those of the symbolic one on the same
// region: both are sound, and the optimised slopes, chosen for the
// pre-activation bounds, can leave an output enclosure a little wider
// than the symbolic pass's (MNIST 3x100 against its float16 copy), so
// that no caller of bounds.Pair gets a tighter single pass than Bound.
// The symbolic pass is sym's when not nil (the same pass, done already:
// boundsAfter).
func (rb *regionBounds) tightenSymbolic(ctx context.Context, f1, f2 *nn.Network, r *region, o *task, opts bounds.Options, sym *regionBounds) error {
	if sym == nil {
		opts.Method = bounds.MethodSymbolic
		pb, err := bounds.PairContext(ctx, f1, f2, spec.Inputs{Box: r.Box1, Pairing: r.Pairing, Quant: o.in.Quant}, opts)
		if err != nil {
			return err
		}
		sym = &regionBounds{Output: pb.Output}
		if n2, err := norm2Of(f1, f2, pb, o.q); err == nil {
			sym.Norm2 = n2
		}
		if rb.Margin != nil {
			m, err := pb.Margin(o.q.C)
			if err != nil {
				return err
			}
			sym.Margin = &m
		}
	}
	out := slices.Clone(rb.Output)
	for j := range out {
		out[j] = intersect(out[j], sym.Output[j])
	}
	rb.Output = out
	if n2 := sym.Norm2; n2 > 0 && (rb.Norm2 <= 0 || n2 < rb.Norm2) {
		rb.Norm2 = n2
	}
	if rb.Margin != nil && sym.Margin != nil {
		m := intersect(*rb.Margin, *sym.Margin)
		rb.Margin = &m
	}
	return nil
}

// intersect returns the intersection of two enclosures of one quantity,
// or a when it is empty (which two sound enclosures never are).
func intersect(a, b bounds.Interval) bounds.Interval {
	c := bounds.Interval{Lo: max(a.Lo, b.Lo), Hi: min(a.Hi, b.Hi)}
	if !(c.Lo <= c.Hi) {
		return a
	}
	return c
}

// planarDirections is the number of directions per pair of outputs of
// bounds.PairBounds.Norm2Planar (its bound is at most 1 / cos(pi / 16) =
// 1.02 times the largest margin).
const planarDirections = 8

// norm2Of returns pb's bound on ||f2 - f1||_2: for quantised networks
// and the 2-norm quantity, whose bound is propagation's alone (no SDP),
// Norm2Planar, which counts the rounding noise behind two outputs once
// per direction rather than once per output; Norm2 otherwise.
func norm2Of(f1, f2 *nn.Network, pb *bounds.PairBounds, q spec.Quantity) (float64, error) {
	if q.C != nil || q.Norm != spec.Norm2 {
		return pb.Norm2(), nil
	}
	if f1.Quantised() || f2.Quantised() {
		return pb.Norm2Planar(planarDirections)
	}
	return pb.Norm2(), nil
}

// outputDiff returns the enclosures of f2_j - f1_j from the bounds b1 of
// f1 and b2 of f2 on their own boxes.
func outputDiff(b1, b2 *bounds.Net) []bounds.Interval {
	o1, o2 := b1.Post[len(b1.Post)-1], b2.Post[len(b2.Post)-1]
	out := make([]bounds.Interval, len(o1))
	for j := range out {
		out[j] = o2[j].Sub(o1[j])
	}
	return out
}

func sameBox(a, b spec.Box) bool { return slices.Equal(a.Lo, b.Lo) && slices.Equal(a.Hi, b.Hi) }

// lmi is the S-procedure LMI of one region before solving:
//
//	sum_o (d_o^T eta)^2 - sum_g gamma_g sum_{f in G_g} (f^T eta)^2 + sum_k lambda_k M_k <= 0,
//
// with d_o = f1_o - f2_o, the gamma groups G = {1}, {x1_i}, {x2_i},
// {x1_i - x2_i}, and the terms M_k.
type lmi struct {
	layout *qc.Layout
	terms  []qc.Term
	diff   []qc.Form
	groups [4][]qc.Form
	// radius[c] >= max |eta_c| over the region (for absorbing residuals).
	radius []float64
	// facts, when not nil, are the linear facts whose products the cut
	// rounds add (cutRounds): the int8 SDP with qc.KindFactProduct.
	facts []qc.Fact
}

// buildLMI assembles the terms of the QC set for region r. With skip set,
// it returns a skipError, before assembling anything, when a network's
// structure or sdpTooLarge rules the LMI out.
func buildLMI(f1, f2 *nn.Network, r *region, rb *regionBounds, o *task, skip bool) (*lmi, error) {
	var v qc.Int8 // quantised networks: their lowerings, the roundings as noise (int8.go)
	if f1.Quantised() || f2.Quantised() {
		var err error
		if v, err = lowerForSDP(f1, f2, rb, o); err != nil {
			return nil, err
		}
		f1, f2 = v.Nets[0], v.Nets[1]
	}
	for n, f := range [2]*nn.Network{f1, f2} {
		if err := f.RequirePlain("the SDP's quadratic constraints"); err != nil {
			return nil, fmt.Errorf("certify: network %d: %w", n+1, err)
		}
	}
	cfg := qc.Config{Nets: [2]*nn.Network{f1, f2}, X1: r.inputs1(), X2: r.inputs(), MergeIdentical: o.QC == QCDefault,
		DiffCoords: o.QC == QCDefault, Noise: v.Noise, Sat: v.Sat}
	if o.QC == QCDefault {
		for n := range 2 {
			cfg.Neurons[n] = stableNeurons(cfg.Nets[n], rb.Nets[n])
		}
	}
	for _, f := range cfg.Nets {
		if err := f.RequireDense("the SDP's quadratic constraints"); err != nil && skip {
			return &lmi{layout: &qc.Layout{Dim: qc.Order(cfg)}}, skipError{SDPSkip{Why: SkipStructure, Detail: err.Error()}}
		} else if err != nil {
			return nil, fmt.Errorf("certify: %w", err)
		}
	}
	if n := qc.Order(cfg); skip && sdpTooLarge(n, o) != "" {
		return &lmi{layout: &qc.Layout{Dim: n}}, skipError{SDPSkip{Why: SkipOrder, Detail: sdpTooLarge(n, o)}}
	}
	l, err := qc.NewLayout(cfg)
	if err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	m := &lmi{layout: l}
	for j := range l.Nets[0].Out {
		m.diff = append(m.diff, qc.Sub(l.Nets[0].Out[j], l.Nets[1].Out[j]))
	}
	if o.q.C != nil {
		// The single form c^T (f1 - f2).
		var d qc.Form
		for j, c := range o.q.C {
			if c != 0 {
				d = qc.Comb(1, d, c, m.diff[j])
			}
		}
		m.diff = []qc.Form{d}
	}
	m.groups[0] = []qc.Form{l.OneForm(1)}
	for i := range l.X1 {
		m.groups[1] = append(m.groups[1], l.X1[i])
		m.groups[2] = append(m.groups[2], l.X2[i])
		if d := qc.Sub(l.X1[i], l.X2[i]); !d.IsZero() {
			m.groups[3] = append(m.groups[3], d)
		}
	}
	if !slices.ContainsFunc(l.Inputs, func(in qc.Input) bool { return in.Mode == qc.InputFree }) {
		// x2 is x1 or a constant: gamma_x2 ||x2||^2 repeats gamma_x1 or gamma.
		m.groups[2] = nil
	}
	switch o.QC {
	case QCPaper:
		m.terms = paperTerms(l, r, o)
	default:
		m.terms = defaultTerms(l, r, rb, o)
	}
	m.terms = mergeTerms(m.terms)
	m.radius = etaRadius(l, r, rb)
	if v.Nets[0] != nil && o.QC == QCDefault && o.kinds().Has(qc.KindFactProduct) {
		m.facts = qc.Facts(l, r.Box1, [2][][]bounds.Interval{rb.Nets[0].Pre, rb.Nets[1].Pre})
	}
	return m, nil
}

// stableNeurons returns the neurons of f that are affine on their bounds.
func stableNeurons(f *nn.Network, b *bounds.Net) [][]qc.Neuron {
	out := make([][]qc.Neuron, len(f.Layers))
	for k, l := range f.Layers {
		out[k] = make([]qc.Neuron, l.Out())
		for i := range out[k] {
			if s, ok := qc.Stable(l.Act, b.Pre[k][i]); ok {
				out[k][i] = s
			}
		}
	}
	return out
}

// inputTerms returns the input constraints common to both QC sets.
func inputTerms(l *qc.Layout, r *region, o *task, lemma3 bool) []qc.Term {
	ts := qc.InputBox(l, r.Box1, r.Box2)
	switch r.Pairing {
	case spec.Independent:
		ts = append(ts, qc.JointInput(l, r.Box1, r.Box2)...)
	case spec.QuantisedInput:
		if lemma3 {
			ts = append(ts, qc.QuantisedInput(l, o.in.Quant)...)
		} else {
			// The authors' |x2 - x1| <= 2^-FB.
			d := make([]bounds.Interval, len(l.X1))
			for i := range d {
				d[i] = bounds.Interval{Lo: -o.in.Quant.Step(), Hi: o.in.Quant.Step()}
			}
			ts = append(ts, qc.QuantDiff(l, d)...)
		}
	}
	return ts
}

// paperTerms returns the authors' QC set (see QCPaper).
func paperTerms(l *qc.Layout, r *region, o *task) []qc.Term {
	ts := inputTerms(l, r, o, false)
	for n := range 2 {
		ts = append(ts, qc.ReLU(l, n)...)
		ts = append(ts, qc.Cross(l, n)...)
		ts = append(ts, nonReLU(qc.Sector(l, n), l)...)
		ts = append(ts, qc.Bounded(l, n)...)
	}
	return append(ts, qc.SlopePairs(l, qc.PairsAll)...)
}

// defaultTerms returns nnbound's QC set (see QCDefault).
func defaultTerms(l *qc.Layout, r *region, rb *regionBounds, o *task) []qc.Term {
	ts := inputTerms(l, r, o, true)
	for n := range 2 {
		ts = append(ts, qc.ReLU(l, n)...)
		ts = append(ts, nonReLU(qc.Sector(l, n), l)...)
		ts = append(ts, qc.Bounded(l, n)...)
		ts = append(ts, qc.PreBox(l, n, rb.Nets[n].Pre)...)
		ts = append(ts, qc.PostBox(l, n, rb.Nets[n].Post)...)
		ts = append(ts, qc.ReLUTriangle(l, n, rb.Nets[n].Pre, true)...)
	}
	for n := range 2 {
		ts = append(ts, qc.Noise(l, n)...)
		ts = append(ts, qc.Saturation(l, n, rb.Nets[n].Pre)...)
	}
	ts = append(ts, qc.DiffSlope(l, [2][][]bounds.Interval{rb.Nets[0].Pre, rb.Nets[1].Pre})...)
	ts = append(ts, qc.DiffBox(l, rb.DiffPre, rb.DiffPost)...)
	ts = append(ts, qc.DiffChords(l, rb.DiffPre, true)...)
	kinds := o.kinds()
	out := ts[:0]
	for _, t := range ts {
		if kinds.Has(t.Kind) {
			out = append(out, t)
		}
	}
	return out
}

// kinds returns Options.Kinds, or DefaultKinds when it is 0.
func (o *Options) kinds() qc.KindSet {
	if o.Kinds == 0 {
		return DefaultKinds()
	}
	return o.Kinds
}

// nonReLU drops the sector terms of ReLU-like neurons, which the
// complementarity equality already implies.
func nonReLU(ts []qc.Term, l *qc.Layout) []qc.Term {
	out := ts[:0]
	for _, t := range ts {
		if !sectorOfReLU(t, l) {
			out = append(out, t)
		}
	}
	return out
}

// sectorOfReLU reports whether t is the sector term of a ReLU-like neuron.
func sectorOfReLU(t qc.Term, l *qc.Layout) bool {
	var n, k, i int
	if _, err := fmt.Sscanf(t.Where, "n%d.L%d[%d]", &n, &k, &i); err != nil {
		return false
	}
	return qc.PropertiesOf(l.Nets[n-1].Layers[k].Act).ReLULike
}

// expected returns the square of intervalValue: a rough size of the
// SDP's optimum, for scaling it.
func (rb *regionBounds) expected(o *task) float64 {
	v := rb.intervalValue(o)
	return v * v
}

// intervalValue returns an upper bound (rounded up) of the measured error
// on the region from the output enclosures alone (see enclosureValue).
func (rb *regionBounds) intervalValue(o *task) float64 {
	return enclosureValue(rb.Output, rb.Margin, rb.Norm2, o.q)
}

// enclosureValue returns an upper bound (rounded up) of the quantity q of
// f1 - f2 from the enclosure out of each output difference and, when q.C
// is set and margin is not nil, the enclosure margin of c^T (f2 - f1):
// sqrt(sum_j mag_j^2), max_j mag_j for the inf-norm, or
// min(sum_j |c_j| mag_j, mag(margin)) for C.
func enclosureValue(out []bounds.Interval, margin *bounds.Interval, norm2 float64, q spec.Quantity) float64 {
	v := 0.0
	for j, iv := range out {
		mag := iv.Mag()
		switch {
		case q.C != nil:
			v = outward.AddUpStep(v, outward.MulUpStep(abs(q.C[j]), mag))
		case q.Norm == spec.NormInf:
			v = max(v, mag)
		default:
			v = outward.AddUpStep(v, outward.MulUpStep(mag, mag))
		}
	}
	if q.C == nil && q.Norm != spec.NormInf {
		v = outward.SqrtUp(v)
		if norm2 > 0 {
			v = min(v, norm2)
		}
	}
	if q.C != nil && margin != nil {
		v = min(v, margin.Mag())
	}
	return v
}
