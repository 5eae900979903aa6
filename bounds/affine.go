package bounds

import (
	"context"
	"fmt"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
	"gonum.org/v1/gonum/mat"
)

// Affine holds affine bounds of a network's outputs in its inputs, valid
// for every input of the box they were computed on:
//
//	Lower_j(x) <= f_j(x) <= Upper_j(x)     for all x in the box,
//
// from back-substitution of the outputs through the relaxations of every
// layer down to the input (the relaxations of the box, so the bounds hold
// on any part of it). Bounding f on many small parts of one box this way
// costs one back-substitution and then, per part, one maximisation of an
// affine function over a box: where the parts are the cells of an input
// quantiser, thousands of them cost less than one call of Single.
type Affine struct {
	box          spec.Box
	upper, lower *linearForm // upper: f; lower: -f
	out          []Interval  // the outputs' enclosure on the whole box
}

// Linear returns affine bounds of the outputs of the plain network f on
// box, back-substituted through the relaxations of opts.Method's bounds
// (MethodInterval is taken as MethodSymbolic; Split is ignored).
// Quantised networks are not supported: their quantisers are not affine
// in the relaxations (use Single).
func Linear(f *nn.Network, box spec.Box, opts Options) (*Affine, error) {
	if err := checkSingle(f, box, opts); err != nil {
		return nil, err
	}
	if f.Quantised() {
		return nil, fmt.Errorf("bounds: affine output bounds of a quantised network: %w", ErrUnsupported)
	}
	s, err := symbolicState(context.Background(), lowered{f: f}, boxIntervals(box), opts.optimiser())
	if err != nil {
		return nil, err
	}
	k := len(f.Layers) - 1
	out := s.net.Post[k]
	a := &Affine{box: box, out: out}
	for neg, dst := range []**linearForm{&a.upper, &a.lower} {
		form := newForm(identity(len(out)), make([]float64, len(out)), neg == 1)
		for j := k; j >= 0; j-- {
			form.relaxStep(s.steps[j], mags(s.net.Pre[j]), nil)
			below := s.net.In
			if j > 0 {
				below = s.net.Post[j-1]
			}
			form.affineLayer(f.Layers[j], nil, mags(below), nil)
		}
		*dst = form
	}
	return a, nil
}

// On returns enclosures of the outputs on part, a box inside the one the
// bounds were computed on: the affine bounds maximised over part, with the
// rounding of that maximisation, intersected with the whole box's
// enclosure. It panics if part is not inside that box (the bounds say
// nothing outside it).
func (a *Affine) On(part spec.Box) []Interval {
	if part.Dim() != a.box.Dim() {
		panic(fmt.Sprintf("bounds: Affine.On: part of dimension %d, box of %d", part.Dim(), a.box.Dim()))
	}
	for i := range part.Lo {
		if !(part.Lo[i] >= a.box.Lo[i] && part.Hi[i] <= a.box.Hi[i] && part.Lo[i] <= part.Hi[i]) {
			panic(fmt.Sprintf("bounds: Affine.On: coordinate %d of the part, [%g, %g], is not inside [%g, %g]",
				i, part.Lo[i], part.Hi[i], a.box.Lo[i], a.box.Hi[i]))
		}
	}
	v := boxIntervals(part)
	up, lo := a.upper.concretise(v), a.lower.concretise(v)
	out := make([]Interval, len(a.out))
	for j := range out {
		out[j] = a.out[j].Intersect(Interval{-lo[j], up[j]})
	}
	return out
}

// identity returns the n x n identity matrix.
func identity(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}
