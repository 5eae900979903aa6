package qc

import (
	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// PreBox returns (xi - l)(u - xi) >= 0 for every kept neuron of network n
// with pre-activation bounds pre[k][i] = [l, u] (bounds.Net.Pre).
func PreBox(l *Layout, n int, pre [][]bounds.Interval) []Term {
	var ts []Term
	l.kept(n, func(r neuronRef, lay *Layer) {
		b := pre[r.layer][r.i]
		ts = append(ts, boxTerm(l, KindPreBox, lay.Pre[r.i], b.Lo, b.Hi, r.String()))
	})
	return ts
}

// PostBox returns (phi - pl)(pu - phi) >= 0 for every kept neuron of
// network n with output bounds post[k][i] = [pl, pu] (bounds.Net.Post),
// phi the neuron's output after any clamp (Layer.Out).
func PostBox(l *Layout, n int, post [][]bounds.Interval) []Term {
	var ts []Term
	l.kept(n, func(r neuronRef, lay *Layer) {
		b := post[r.layer][r.i]
		ts = append(ts, boxTerm(l, KindPostBox, lay.Out[r.i], b.Lo, b.Hi, r.String()))
	})
	return ts
}

// ReLUTriangle returns, for every kept ReLU neuron of network n whose
// pre-activation bound [l, u] has l < 0 < u, the upper side of the triangle
// relaxation,
//
//	u (xi - l) - (u - l) phi >= 0,
//
// (phi lies below the chord from (l, 0) to (u, u)) and, when products is
// set, its products with phi >= 0 and with phi - xi >= 0.
func ReLUTriangle(l *Layout, n int, pre [][]bounds.Interval, products bool) []Term {
	var ts []Term
	l.kept(n, func(r neuronRef, lay *Layer) {
		b := pre[r.layer][r.i]
		if lay.Act.Kind != nn.ReLU || !(b.Lo < 0 && b.Hi > 0) {
			return
		}
		xi, phi := lay.Pre[r.i], lay.Post[r.i]
		tri := triangle(l, xi, phi, b.Lo, b.Hi)
		ts = append(ts, l.Linear(KindTriangle, tri, r.String()))
		if products {
			ts = append(ts,
				Term{Kind: KindTriangleProduct, Sign: NonNeg, A: tri, B: phi, Where: r.String()},
				Term{Kind: KindTriangleProduct, Sign: NonNeg, A: tri, B: Sub(phi, xi), Where: r.String()})
		}
	})
	return ts
}

// triangle returns the form u (xi - lo) - c phi with c = u - lo rounded
// down: phi >= 0, so a smaller c keeps the constraint valid, and Comb
// accounts for the rest of the rounding in the radii.
func triangle(l *Layout, xi, phi Form, lo, u float64) Form {
	c := outward.Down(u - lo)
	return Comb(u, Sub(xi, l.OneForm(lo)), -c, phi)
}

// Stable returns how a neuron with activation a and pre-activation bound
// pre can be eliminated from eta: ok is true when a is affine on pre (a
// ReLU or leaky ReLU not straddling 0, a hard-tanh within one of its three
// pieces), and then phi = n.Slope*xi + n.Offset exactly on pre.
func Stable(a nn.Activation, pre bounds.Interval) (n Neuron, ok bool) {
	switch a.Kind {
	case nn.Identity:
		return Neuron{Eliminated: true, Slope: 1}, true
	case nn.ReLU, nn.LeakyReLU:
		alpha := 0.0
		if a.Kind == nn.LeakyReLU {
			alpha = a.Alpha
		}
		switch {
		case pre.Lo >= 0:
			return Neuron{Eliminated: true, Slope: 1}, true
		case pre.Hi <= 0:
			return Neuron{Eliminated: true, Slope: alpha}, true
		}
	case nn.HardTanh:
		switch {
		case pre.Hi <= a.Lo:
			return Neuron{Eliminated: true, Offset: a.Lo}, true
		case pre.Lo >= a.Hi:
			return Neuron{Eliminated: true, Offset: a.Hi}, true
		case pre.Lo >= a.Lo && pre.Hi <= a.Hi:
			return Neuron{Eliminated: true, Slope: 1}, true
		}
	}
	return Keep, false
}
