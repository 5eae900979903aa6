package onnx

import (
	"math"

	"github.com/nnbound/nnbound/nn"
)

// The builder's chain: what each operator appends to the network being
// built. Affine maps accumulate in the pending map, elementwise max/min in
// the pending clipping; an activation closes a layer.

// clipping is the pending elementwise clipping y_i = min(max(x_i, lo_i), hi_i).
type clipping struct{ lo, hi []float64 }

// applyAffine appends the affine map a (on the current sample) to the chain.
func (b *builder) applyAffine(a *affine) error {
	if err := b.flushClip(); err != nil {
		return err
	}
	if b.preQ != nil { // the quantised map is a layer of its own
		if err := b.emit(nn.Activation{Kind: nn.Identity}); err != nil {
			return err
		}
	}
	if b.pend == nil {
		b.pend = a
		return nil
	}
	b.pendInt = nil
	p, err := b.pend.then(a, b.bud)
	if err != nil {
		return err
	}
	b.pend = p
	return nil
}

// activate appends an activation layer.
func (b *builder) activate(act nn.Activation) error {
	if err := b.flushClip(); err != nil {
		return err
	}
	// Elu(1) followed by LeakyRelu(a) or PRelu(a) is Elu(a): for s < 0,
	// elu_1(s) = exp(s) - 1 < 0 is scaled by a. The writer uses this to store
	// an ELU alpha that is not a float32.
	if k := len(b.layers) - 1; act.Kind == nn.LeakyReLU && b.pend == nil && k >= 0 &&
		b.layers[k].Act == (nn.Activation{Kind: nn.ELU, Alpha: 1}) && b.layers[k].Post == nil {
		b.layers[k].Act.Alpha = act.Alpha
		return nil
	}
	return b.emit(act)
}

// emit closes a layer: act applied to the pending affine map (the identity
// if there is none), with the pending pre-activation quantiser.
func (b *builder) emit(act nn.Activation) error {
	p := b.pend
	if p == nil {
		var err error
		if p, err = identity(b.shape.size(), b.bud); err != nil {
			return err
		}
	}
	l, err := p.layer(act, b.bud)
	if err != nil {
		return err
	}
	l.Pre, b.preQ = b.preQ, nil
	l.Int, b.pendInt = b.pendInt, nil
	b.layers = append(b.layers, l)
	b.pend = nil
	return nil
}

// clipMax composes the pending clipping with y = max(y, c) (c per sample value).
func (b *builder) clipMax(c []float64) {
	cl := b.pendingClip()
	for i, v := range c {
		cl.lo[i], cl.hi[i] = max(cl.lo[i], v), max(cl.hi[i], v)
	}
}

// clipMin composes the pending clipping with y = min(y, d) (d per sample value).
func (b *builder) clipMin(d []float64) {
	cl := b.pendingClip()
	for i, v := range d {
		cl.lo[i], cl.hi[i] = min(cl.lo[i], v), min(cl.hi[i], v)
	}
}

// pendingClip returns the pending clipping, starting an unbounded one.
func (b *builder) pendingClip() *clipping {
	if b.clip == nil {
		n := b.shape.size()
		b.clip = &clipping{lo: make([]float64, n), hi: make([]float64, n)}
		for i := range n {
			b.clip.lo[i], b.clip.hi[i] = math.Inf(-1), math.Inf(1)
		}
	}
	return b.clip
}

// flushClip turns the pending clipping into layers (see nn.Clip).
func (b *builder) flushClip() error {
	cl := b.clip
	if cl == nil {
		return nil
	}
	b.clip = nil
	lo, hi := cl.lo[0], cl.hi[0]
	negInf, posInf := math.Inf(-1), math.Inf(1)
	uniform := true
	for i := range cl.lo {
		uniform = uniform && cl.lo[i] == lo && cl.hi[i] == hi
	}
	switch {
	case uniform && lo == negInf && hi == posInf:
		return nil
	case uniform && lo > negInf && hi < posInf:
		return b.emit(nn.Activation{Kind: nn.HardTanh, Lo: lo, Hi: hi})
	case uniform && lo == 0 && hi == posInf:
		return b.emit(nn.Activation{Kind: nn.ReLU})
	}
	if b.preQ != nil { // the clipping's affine maps must not fuse before the quantiser
		if err := b.emit(nn.Activation{Kind: nn.Identity}); err != nil {
			return err
		}
	}
	b.pendInt = nil // the clipping's maps fuse with the pending one
	n := len(cl.lo)
	if err := b.bud.take(4*n*n + 4*n); err != nil {
		return err
	}
	layers, err := nn.Clip(cl.lo, cl.hi)
	if err != nil {
		return err
	}
	for _, l := range layers {
		a, err := fromLayer(l, b.bud)
		if err != nil {
			return err
		}
		if b.pend == nil {
			b.pend = a
		} else if b.pend, err = b.pend.then(a, b.bud); err != nil {
			return err
		}
		if l.Act.Kind != nn.Identity {
			if err := b.emit(l.Act); err != nil {
				return err
			}
		}
	}
	return nil
}
