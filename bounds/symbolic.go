package bounds

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// symbolicState returns bounds of f on the box in by back-substitution,
// with the back-substitution state after the last layer: each layer's
// pre-activation is bounded by a linear form in the outputs of every layer
// below it in turn, down to the input, through the linear relaxations of
// the activations (relax.go); the tightest concretisation at any level,
// and the interval bound, is kept. So the result is never looser than
// intervalNet's. With opt not nil the slopes of the free lines are then
// optimised per target (optimise.go), which again can only tighten. Once
// ctx is done it returns ctx's error (wrapped), looked at before every
// layer.
func symbolicState(ctx context.Context, m lowered, in []Interval, opt *OptimiseSettings) (*symNet, error) {
	f := m.f
	net := &Net{In: in, Pre: make([][]Interval, len(f.Layers)), Post: make([][]Interval, len(f.Layers))}
	sn := newSymNet(m, net)
	x := in
	for k, l := range f.Layers {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("bounds: stopped before layer %d: %w", k, err)
		}
		net.Pre[k] = affine(l, x, m.layerNoise(k))
		if k > 0 {
			sn.tighten(k, opt)
		}
		m.tightenGrid(k, net.Pre[k])
		net.Post[k] = images(l.Act, net.Pre[k])
		m.tightenPost(k, net.Pre[k], net.Post[k])
		sn.relax(k)
		x = net.Post[k]
	}
	return sn, nil
}

// symNet is the back-substitution state of one network: per layer its
// relaxation lines, as a step of a linear form, and its free lines.
type symNet struct {
	f     *nn.Network
	m     lowered // f with its noise
	net   *Net
	rels  []relaxation
	steps []stepRelax
	free  []freeLines
	// unstableOnly restricts tighten to the neurons straddling a kink
	// (Options.UnstableOnly).
	unstableOnly bool
	// outputs restricts tighten at the last layer to these neurons
	// (Options.Outputs; nil: all).
	outputs []int
	// compact caches the levels of the slope optimiser (relax sets a
	// layer's once); abs, per layer, |W| times the bounds below it.
	compact *levelCache
	abs     []absProduct
}

// newSymNet returns the (empty) state for f and its bounds net.
func newSymNet(m lowered, net *Net) *symNet {
	d := len(m.f.Layers)
	return &symNet{f: m.f, m: m, net: net, rels: make([]relaxation, d), steps: make([]stepRelax, d), free: make([]freeLines, d),
		abs: make([]absProduct, d), compact: &levelCache{}}
}

// relax builds the relaxation of layer k from its pre-activation bounds.
func (s *symNet) relax(k int) {
	a := s.f.Layers[k].Act
	s.rels[k] = relaxLayer(a, s.net.Pre[k])
	s.steps[k] = lineRelax(s.rels[k])
	s.free[k] = newFreeLines(a, s.net.Pre[k])
}

// tighten intersects the pre-activation bounds of layer k (k > 0) with
// those of back-substitution and, with opt, of optimised slopes.
func (s *symNet) tighten(k int, opt *OptimiseSettings) {
	pre := s.net.Pre[k]
	if a := s.f.Layers[k].Act; s.unstableOnly && hasKinks(a) || !s.allNeeded(k) {
		rows, sign := kinkRows(pre, func(i int) bool {
			return s.needed(k, i) && (!s.unstableOnly || !hasKinks(a) || straddlesKink(a, pre[i]))
		})
		if len(rows) > 0 {
			intersectRows(pre, rows, sign, s.backSubstitute(k, rows, sign, nil))
		}
	} else {
		hi := s.backSubstitute(k, nil, nil, nil)
		lo := s.backSubstitute(k, nil, negOnes(len(pre)), nil)
		for i := range pre {
			pre[i] = pre[i].Intersect(Interval{-lo[i], hi[i]})
		}
	}
	if opt != nil {
		s.optimise(k, *opt)
	}
}

// allNeeded reports whether every neuron of layer k is tightened: all
// but those of the last layer that Options.Outputs leaves out.
func (s *symNet) allNeeded(k int) bool {
	return s.outputs == nil || k < len(s.f.Layers)-1
}

// needed reports whether neuron i of layer k is tightened (allNeeded).
func (s *symNet) needed(k, i int) bool {
	return s.allNeeded(k) || slices.Contains(s.outputs, i)
}

// backSubstitute returns upper bounds of sign[r] xi^k_{rows[r]} (all
// neurons when rows is nil, sign +1 when sign is nil) from the bounds and
// relaxations of the layers below, row r using the slopes ov[j] of its
// free lines in layer j when ov is not nil.
func (s *symNet) backSubstitute(k int, rows []int, sign []float64, ov []*rowSlopes) []float64 {
	f, net := s.f, s.net
	l := f.Layers[k]
	form := layerRows(l, rows, sign)
	defer form.recycle()
	form.addNoise(s.m.layerNoise(k), rows)
	best := form.concretise(net.Post[k-1])
	for j := k - 1; j >= 0; j-- {
		var o *rowSlopes
		if ov != nil {
			o = ov[j]
		}
		mag := pooledMags(net.Pre[j])
		form.relaxStep(s.steps[j], mag, o)
		putFloats(mag)
		below := net.In
		if j > 0 {
			below = net.Post[j-1]
		}
		mag = pooledMags(below)
		form.affineLayer(f.Layers[j], s.m.layerNoise(j), mag, &s.abs[j])
		putFloats(mag)
		for i, v := range form.concretise(below) {
			best[i] = min(best[i], v)
		}
	}
	return best
}

// kinkRows returns the rows i, i and signs +1, -1 of the neurons i of x
// that keep accepts, for a back-substitution of both their bounds.
func kinkRows(x []Interval, keep func(i int) bool) (rows []int, sign []float64) {
	for i := range x {
		if keep(i) {
			rows = append(rows, i, i)
			sign = append(sign, 1, -1)
		}
	}
	return rows, sign
}

// intersectRows intersects x[rows[r]] with the upper bound b[r] of
// sign[r] x[rows[r]], in place.
func intersectRows(x []Interval, rows []int, sign, b []float64) {
	for r, i := range rows {
		if sign[r] > 0 {
			x[i] = x[i].Intersect(Interval{x[i].Lo, b[r]})
		} else {
			x[i] = x[i].Intersect(Interval{-b[r], x[i].Hi})
		}
	}
}

// negOnes returns n copies of -1.
func negOnes(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

// optimise tightens the pre-activation bounds of layer k (k > 0) of the
// neurons where it can matter (those straddling a kink; every neuron of a
// smooth or identity layer) by optimised slopes, when some layer below has
// free lines.
func (s *symNet) optimise(k int, set OptimiseSettings) {
	nfree := 0
	for j := range k {
		nfree += s.free[j].count
		if !finiteAll(s.net.Pre[j]) {
			return
		}
	}
	if nfree == 0 || !finiteAll(s.net.In) || hasStructured(s.f, k) { // no slope optimisation through convolutions
		return
	}
	pre := s.net.Pre[k]
	a := s.f.Layers[k].Act
	var rows []int
	var sign []float64
	for i, x := range pre {
		if hasKinks(a) && !straddlesKink(a, x) || !s.needed(k, i) {
			continue
		}
		rows = append(rows, i, i)
		sign = append(sign, 1, -1)
	}
	if len(rows) == 0 {
		return
	}
	o := s.slopeOpt(k, rows, sign)
	o.run(set)
	b := s.backSubstitute(k, rows, sign, o.slopes)
	releaseSlopes(o.slopes)
	for r, i := range rows {
		if sign[r] > 0 {
			pre[i] = pre[i].Intersect(Interval{pre[i].Lo, b[r]})
		} else {
			pre[i] = pre[i].Intersect(Interval{-b[r], pre[i].Hi})
		}
	}
}

// hasKinks reports whether a is piecewise linear with kinks (so that only
// the neurons whose bounds straddle one have anything to gain).
func hasKinks(a nn.Activation) bool {
	switch a.Kind {
	case nn.ReLU, nn.LeakyReLU, nn.ELU, nn.HardTanh:
		return true
	}
	return false
}

// finiteAll reports whether every end of every interval of x is finite.
func finiteAll(x []Interval) bool {
	for _, v := range x {
		if math.IsInf(v.Lo, 0) || math.IsInf(v.Hi, 0) || math.IsNaN(v.Lo) || math.IsNaN(v.Hi) {
			return false
		}
	}
	return true
}

// slopeOpt returns the optimisation of the targets sign[r] xi^k_{rows[r]}.
func (s *symNet) slopeOpt(k int, rows []int, sign []float64) *slopeOpt {
	levels := make([]chainLevel, k)
	for j := range k {
		l := s.f.Layers[j]
		levels[j] = chainLevel{rel: s.steps[j], free: &s.free[j], w: l.W.RawMatrix(), b: l.B}
	}
	l := s.f.Layers[k]
	lam0, c0 := targetRows(l.W.RawMatrix(), l.B, rows, sign)
	return newSlopeOpt(levels, s.net.In, lam0, c0, s.compact)
}
