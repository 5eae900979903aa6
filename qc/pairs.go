package qc

import (
	"fmt"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
)

// slopeTerm returns the slope restriction between two neurons p, q with
// the same activation, slope in [a, b]:
//
//	(phi_p - phi_q - a (xi_p - xi_q)) (b (xi_p - xi_q) - (phi_p - phi_q)) >= 0.
func slopeTerm(kind Kind, a, b float64, xiP, phiP, xiQ, phiQ Form, where string) Term {
	dxi, dphi := Sub(xiP, xiQ), Sub(phiP, phiQ)
	return Term{Kind: kind, Sign: NonNeg, A: Comb(1, dphi, -a, dxi), B: Comb(b, dxi, -1, dphi), Where: where}
}

// PairSet selects the neuron pairs of SlopePairs.
type PairSet int

// The pair sets.
const (
	PairsWithin1 PairSet = 1 << iota // pairs i < j of network 1
	PairsWithin2                     // pairs i < j of network 2
	PairsAcross                      // every ordered pair (i of network 2, j of network 1)
	PairsAll     = PairsWithin1 | PairsWithin2 | PairsAcross
)

// SlopePairs returns the slope-restriction constraints of Lemma 2 for pairs
// of kept neurons with the same activation, in any layers, each pair with
// its own multiplier: the authors' set (their tau_slope_1, tau_slope_2 and
// tau_slope) for PairsAll. Across the networks the pair (i of network 2,
// j of network 1) and (j of network 2, i of network 1) are different
// constraints and get a multiplier each. The count grows as the square of
// the number of neurons.
func SlopePairs(l *Layout, set PairSet) []Term {
	type neuron struct {
		ref     neuronRef
		lay     *Layer
		xi, phi Form
	}
	var ns [2][]neuron
	for n := range 2 {
		l.kept(n, func(r neuronRef, lay *Layer) {
			ns[n] = append(ns[n], neuron{r, lay, lay.Pre[r.i], lay.Post[r.i]})
		})
	}
	var ts []Term
	add := func(p, q neuron) {
		if p.lay.Act != q.lay.Act {
			return
		}
		pr := PropertiesOf(p.lay.Act)
		ts = append(ts, slopeTerm(KindSlopePair, pr.SlopeLo, pr.SlopeHi, p.xi, p.phi, q.xi, q.phi,
			fmt.Sprintf("%v,%v", p.ref, q.ref)))
	}
	for n, bit := range [2]PairSet{PairsWithin1, PairsWithin2} {
		if set&bit == 0 {
			continue
		}
		for i := range ns[n] {
			for j := i + 1; j < len(ns[n]); j++ {
				add(ns[n][i], ns[n][j])
			}
		}
	}
	if set&PairsAcross != 0 {
		for _, p := range ns[1] {
			for _, q := range ns[0] {
				add(p, q)
			}
		}
	}
	return ts
}

// paired calls fn for every neuron i of layer k that exists in both
// networks, whatever their activations, with at least one of the two
// kept.
func (l *Layout) paired(fn func(k, i int, a, b *Layer)) {
	n1, n2 := l.Nets[0].Layers, l.Nets[1].Layers
	for k := range min(len(n1), len(n2)) {
		a, b := &n1[k], &n2[k]
		if len(a.Pre) != len(b.Pre) {
			continue
		}
		for i := range a.Pre {
			if a.Coord[i] >= 0 || b.Coord[i] >= 0 {
				fn(k, i, a, b)
			}
		}
	}
}

// corresponding calls fn for the neurons of paired with the same
// activation in both networks.
func (l *Layout) corresponding(fn func(k, i int, a, b *Layer)) {
	l.paired(func(k, i int, a, b *Layer) {
		if a.Act == b.Act {
			fn(k, i, a, b)
		}
	})
}

// DiffSlope returns the slope restriction between corresponding neurons
// (same layer, same index, same activation) of the two networks, the
// diagonal of the authors' cross-network pairs: with dxi = xi2 - xi1 and
// dphi = phi2 - phi1, (dphi - a dxi)(b dxi - dphi) >= 0, where [a, b] is
// the activation's slope range. For tanh and sigmoid, given pre-activation
// bounds pre[n] of network n (bounds.Net.Pre; nil for none), [a, b] is
// narrowed to the slopes on the hull of the two neurons' bounds
// (bounds.SlopeRange): by the mean value theorem dphi = s dxi for an s
// there. A saturated neuron then gets a slope near 0, where the global
// range would allow 1.
func DiffSlope(l *Layout, pre [2][][]bounds.Interval) []Term {
	var ts []Term
	l.corresponding(func(k, i int, a, b *Layer) {
		if Sub(b.Post[i], a.Post[i]).IsZero() && Sub(b.Pre[i], a.Pre[i]).IsZero() {
			return // the same neuron (see Config.MergeIdentical)
		}
		p := PropertiesOf(a.Act)
		lo, hi := p.SlopeLo, p.SlopeHi
		if smooth := a.Act.Kind == nn.Tanh || a.Act.Kind == nn.Sigmoid; smooth && pre[0] != nil && pre[1] != nil {
			s := bounds.SlopeRange(a.Act, pre[0][k][i].Hull(pre[1][k][i]))
			lo, hi = max(lo, s.Lo), min(hi, s.Hi)
		}
		ts = append(ts, slopeTerm(KindDiffSlope, lo, hi, b.Pre[i], b.Post[i], a.Pre[i], a.Post[i],
			fmt.Sprintf("L%d[%d]", k, i)))
	})
	return ts
}

// DiffBox returns, for neurons of the same place in both networks
// (paired: also where the activations differ, a float ReLU against the
// hard-tanh of its int8 copy's clamp), the box constraints of the
// differences of their pre-activations and outputs (after any clamp,
// Layer.Out) from bounds on them (bounds.PairBounds.DiffPre and DiffPost;
// a nil layer is skipped):
//
//	(dxi - dl)(du - dxi) >= 0,   (dphi - pl)(pu - dphi) >= 0.
func DiffBox(l *Layout, diffPre, diffPost [][]bounds.Interval) []Term {
	var ts []Term
	l.paired(func(k, i int, a, b *Layer) {
		where := fmt.Sprintf("L%d[%d]", k, i)
		// A difference that is identically zero (the same neuron) gives no
		// constraint.
		if dxi := Sub(b.Pre[i], a.Pre[i]); k < len(diffPre) && diffPre[k] != nil && !dxi.IsZero() {
			d := diffPre[k][i]
			ts = append(ts, boxTerm(l, KindDiffPreBox, dxi, d.Lo, d.Hi, where))
		}
		if dphi := Sub(b.Out[i], a.Out[i]); k < len(diffPost) && diffPost[k] != nil && !dphi.IsZero() {
			d := diffPost[k][i]
			ts = append(ts, boxTerm(l, KindDiffPostBox, dphi, d.Lo, d.Hi, where))
		}
	})
	return ts
}
