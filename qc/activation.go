package qc

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/nn"
)

// Properties are the properties of an activation phi that Lemma 2 turns
// into quadratic constraints (the table of Appendix 4).
//
//	sector:  phi(s) - Center lies between SectorLo*s and SectorHi*s
//	slope:   (phi(s) - phi(t))/(s - t) in [SlopeLo, SlopeHi]
//	bounded: phi(s) in [Lo, Hi] (either end may be infinite)
//
// ReLULike activations (ReLU, leaky ReLU with 0 <= Alpha <= 1) also have
//
//	phi(s) - Alpha*s >= 0,  phi(s) - s >= 0,  (phi(s) - s)(phi(s) - Alpha*s) = 0,
//
// the positivity, positive complement and complementarity of the paper
// (Alpha = 0 for ReLU).
type Properties struct {
	Center             float64
	SectorLo, SectorHi float64
	SlopeLo, SlopeHi   float64
	Lo, Hi             float64
	ReLULike           bool
	Alpha              float64
}

// PropertiesOf returns the properties of a. Identity has slope and sector
// [1, 1]; it never gets a coordinate of eta.
func PropertiesOf(a nn.Activation) Properties {
	inf := math.Inf(1)
	p := Properties{SectorLo: 0, SectorHi: 1, SlopeLo: 0, SlopeHi: 1, Lo: -inf, Hi: inf}
	switch a.Kind {
	case nn.Identity:
		p.SectorLo, p.SlopeLo = 1, 1
	case nn.ReLU:
		p.Lo, p.ReLULike = 0, true
	case nn.LeakyReLU:
		lo, hi := min(a.Alpha, 1), max(a.Alpha, 1)
		p.SectorLo, p.SectorHi, p.SlopeLo, p.SlopeHi = lo, hi, lo, hi
		if a.Alpha >= 0 && a.Alpha <= 1 {
			p.ReLULike, p.Alpha = true, a.Alpha
		}
	case nn.Tanh:
		p.Lo, p.Hi = -1, 1
	case nn.Sigmoid:
		p.Center, p.SectorHi, p.SlopeHi, p.Lo, p.Hi = 0.5, 0.25, 0.25, 0, 1
	case nn.ELU:
		// Slope alpha*exp(s) on s < 0, 1 on s > 0; range (-alpha, inf).
		hi := max(1, a.Alpha)
		p.SectorLo, p.SlopeLo = min(0, a.Alpha), min(0, a.Alpha)
		p.SectorHi, p.SlopeHi = hi, hi
		if a.Alpha >= 0 {
			p.Lo = -a.Alpha
		}
	case nn.HardTanh:
		p.Lo, p.Hi = a.Lo, a.Hi
		if a.Lo > 0 || a.Hi < 0 {
			// The sector through the origin fails; centre it at phi(0).
			p.Center = min(max(0, a.Lo), a.Hi)
			p.SectorLo = 0
		}
	}
	return p
}

// neuronRef identifies one kept neuron.
type neuronRef struct {
	net, layer, i int
}

func (r neuronRef) String() string { return fmt.Sprintf("n%d.L%d[%d]", r.net+1, r.layer, r.i) }

// kept calls fn for every neuron of network n with a coordinate of eta.
func (l *Layout) kept(n int, fn func(r neuronRef, lay *Layer)) {
	for k := range l.Nets[n].Layers {
		lay := &l.Nets[n].Layers[k]
		for i, c := range lay.Coord {
			if c >= 0 {
				fn(neuronRef{n, k, i}, lay)
			}
		}
	}
}

// Sector returns the sector constraint of Lemma 2 for every kept neuron of
// network n,
//
//	(phi - c - a xi)(b xi - (phi - c)) >= 0,
//
// with c, a, b the Center, SectorLo and SectorHi of its activation.
func Sector(l *Layout, n int) []Term {
	var ts []Term
	l.kept(n, func(r neuronRef, lay *Layer) {
		p := PropertiesOf(lay.Act)
		xi, phi := lay.Pre[r.i], Sub(lay.Post[r.i], l.OneForm(p.Center))
		ts = append(ts, Term{Kind: KindSector, Sign: NonNeg,
			A: Comb(1, phi, -p.SectorLo, xi), B: Comb(p.SectorHi, xi, -1, phi), Where: r.String()})
	})
	return ts
}

// ReLU returns the ReLU-like constraints of Lemma 2 for every kept neuron of
// network n whose activation is ReLULike: positivity phi - alpha xi >= 0,
// positive complement phi - xi >= 0 (both linear), and complementarity
// (phi - xi)(phi - alpha xi) = 0 with a free multiplier.
func ReLU(l *Layout, n int) []Term {
	var ts []Term
	l.kept(n, func(r neuronRef, lay *Layer) {
		p := PropertiesOf(lay.Act)
		if !p.ReLULike {
			return
		}
		xi, phi := lay.Pre[r.i], lay.Post[r.i]
		pos, cpos := Comb(1, phi, -p.Alpha, xi), Sub(phi, xi)
		ts = append(ts,
			l.Linear(KindPositive, pos, r.String()),
			l.Linear(KindComplement, cpos, r.String()),
			Term{Kind: KindComplementarity, Sign: Free, A: cpos, B: pos, Where: r.String()})
	})
	return ts
}

// Cross returns the authors' within-network cross terms for every kept
// ReLU-like neuron of network n: phi (phi - xi) >= 0 (crx_i) and
// phi phi >= 0 (crx_ii). Both are implied by the other constraints (the
// first is complementarity with a sign, the second is trivially true) and
// are kept only to reproduce the authors' SDP.
func Cross(l *Layout, n int) []Term {
	var ts []Term
	l.kept(n, func(r neuronRef, lay *Layer) {
		p := PropertiesOf(lay.Act)
		if !p.ReLULike {
			return
		}
		xi, phi := lay.Pre[r.i], lay.Post[r.i]
		pos := Comb(1, phi, -p.Alpha, xi)
		ts = append(ts,
			Term{Kind: KindCross, Sign: NonNeg, A: pos, B: Sub(phi, xi), Where: r.String()},
			Term{Kind: KindCrossPhi, Sign: NonNeg, A: pos, B: pos, Where: r.String()})
	})
	return ts
}

// Bounded returns, for every kept neuron of network n whose activation is
// bounded, (phi - lo)(hi - phi) >= 0 and the linear phi - lo >= 0,
// hi - phi >= 0; an activation bounded on one side only gets the linear
// constraint on that side.
func Bounded(l *Layout, n int) []Term {
	var ts []Term
	l.kept(n, func(r neuronRef, lay *Layer) {
		p := PropertiesOf(lay.Act)
		if lay.Act.Kind == nn.ReLU || lay.Act.Kind == nn.LeakyReLU {
			return // positivity already says it
		}
		phi := lay.Post[r.i]
		loOK, hiOK := !math.IsInf(p.Lo, 0), !math.IsInf(p.Hi, 0)
		if loOK && hiOK {
			ts = append(ts, boxTerm(l, KindBounded, phi, p.Lo, p.Hi, r.String()))
		}
		if loOK {
			ts = append(ts, l.Linear(KindBoundedLinear, Sub(phi, l.OneForm(p.Lo)), r.String()))
		}
		if hiOK {
			ts = append(ts, l.Linear(KindBoundedLinear, Sub(l.OneForm(p.Hi), phi), r.String()))
		}
	})
	return ts
}
