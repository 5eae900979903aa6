package bounds

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
)

// Bounds known on a larger box (Options.Within).
//
// In branch and bound over the input box a child's box lies inside its
// parent's, so every enclosure the parent's bounds hold of a layer's
// pre-activations, or of their differences, holds on the child's box too.
// Pair intersects them in, layer by layer, before it relaxes the layer: the
// child's own interval and symbolic bounds are tighter where its box is
// smaller, the parent's where they were optimised, and the relaxations of
// the layers above are built on the better of the two. Any enclosure valid
// on a superset of the box is sound to intersect; nothing else is assumed
// of them.

// Prior returns a copy of the enclosures of pb that Options.Within uses
// (each network's pre-activations, the pre-activation and activation
// differences), without the propagation state Margin needs: small enough to
// keep for every queued node of a search. It keeps the packed matrices that
// the Pairs within it share (chainPacks).
func (pb *PairBounds) Prior() *PairBounds {
	cp := func(x [][]Interval) [][]Interval {
		out := make([][]Interval, len(x))
		for k, v := range x {
			if v != nil {
				out[k] = append([]Interval(nil), v...)
			}
		}
		return out
	}
	return &PairBounds{Net1: &Net{Pre: cp(pb.Net1.Pre)}, Net2: &Net{Pre: cp(pb.Net2.Pre)},
		DiffPre: cp(pb.DiffPre), DiffPost: cp(pb.DiffPost), packs: pb.packs}
}

// checkWithin reports an Options.Within whose shapes do not match the
// (lowered) networks f1, f2.
func checkWithin(w *PairBounds, f1, f2 *nn.Network) error {
	if w == nil {
		return nil
	}
	if w.Net1 == nil || w.Net2 == nil {
		return fmt.Errorf("bounds: options: Within has no network bounds: %w", ErrOptions)
	}
	for i, c := range []struct {
		pre [][]Interval
		f   *nn.Network
	}{{w.Net1.Pre, f1}, {w.Net2.Pre, f2}} {
		if len(c.pre) != len(c.f.Layers) {
			return fmt.Errorf("bounds: options: Within has %d layers of network %d, want %d: %w", len(c.pre), i+1, len(c.f.Layers), ErrOptions)
		}
		for k, l := range c.f.Layers {
			if len(c.pre[k]) != l.Out() {
				return fmt.Errorf("bounds: options: Within has %d neurons in layer %d of network %d, want %d: %w",
					len(c.pre[k]), k, i+1, l.Out(), ErrOptions)
			}
		}
	}
	common := min(len(f1.Layers), len(f2.Layers))
	if len(w.DiffPre) != common || len(w.DiffPost) != common {
		return fmt.Errorf("bounds: options: Within has %d, %d difference layers, want %d: %w", len(w.DiffPre), len(w.DiffPost), common, ErrOptions)
	}
	for k := range common {
		for _, d := range [][]Interval{w.DiffPre[k], w.DiffPost[k]} {
			if d != nil && len(d) != f1.Layers[k].Out() {
				return fmt.Errorf("bounds: options: Within has %d differences in layer %d, want %d: %w", len(d), k, f1.Layers[k].Out(), ErrOptions)
			}
		}
	}
	return nil
}

// withinLayer intersects x, bounds of layer k, with those of prior (nil, or
// a nil layer: nothing known).
func withinLayer(x []Interval, prior [][]Interval, k int) {
	if prior == nil || prior[k] == nil || x == nil {
		return
	}
	intersectAll(x, prior[k])
}

// tightenShadows back-substitutes, in network 1, the neurons of layer k
// that are stable in network 1 but straddle a kink in network 2, and
// tightens network 2's enclosures through them again (Options.
// SecondByDifference). Network 2's enclosure of such a neuron is network
// 1's plus the difference's, and with Options.UnstableOnly network 1's is
// not back-substituted where it is stable: under Options.Within it stays
// as wide as an ancestor's, and network 2 straddles a kink it does not
// reach, which made the output bound of leaves deep in a search many times
// looser than bounding the box afresh (docs/tuning.md).
func (pp *pairProp) tightenShadows(k int) {
	n1, n2 := pp.pb.Net1.Pre[k], pp.pb.Net2.Pre[k]
	a1, a2 := pp.f1.Layers[k].Act, pp.f2.Layers[k].Act
	if !pp.sym1.unstableOnly || !hasKinks(a1) {
		return // every row of network 1 is back-substituted already
	}
	rows, sign := kinkRows(n1, func(i int) bool { return straddlesKink(a2, n2[i]) && !straddlesKink(a1, n1[i]) })
	if len(rows) == 0 {
		return
	}
	intersectRows(n1, rows, sign, pp.sym1.backSubstitute(k, rows, sign, nil))
	tightenPre(n1, n2, pp.pb.DiffPre[k])
}
