package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// The difference forms of ForwardDiff: per neuron, candidate forms are
// built in fd.cand and the narrowest is kept in fd.best. Each candidate is
// sound by itself, so the choice is only a heuristic.

// keep copies fd.cand to fd.best if first or narrower.
func (fd *ForwardDiff) keep(first bool) {
	if first || fd.cand.better(&fd.best) {
		fd.best.a = fd.best.a[:len(fd.cand.a)]
		copy(fd.best.a, fd.cand.a)
		b, c := &fd.best, &fd.cand
		b.c, b.rad, b.lo, b.hi, b.r, b.mag = c.c, c.rad, c.lo, c.hi, c.r, c.mag
	}
}

// deltaPre sets the forms of xi_g - xi_f of layer k (equal output widths)
// in fd.pre[2]: the difference of the two networks' forms or, when the
// layers have the same shape and the difference of their inputs is
// tracked (hasDelta), the difference propagation
//
//	W_g delta + (W_g - W_f) h_f + (b_g - b_f),
//
// whichever is narrower.
func (fd *ForwardDiff) deltaPre(k int, lf, lg *nn.Layer, hasDelta bool) {
	d := fd.diffs[k]
	c := &fd.cand
	for r := range lf.Out() {
		c.reset(fd.used)
		c.addScaled(1, &fd.pre[1], r, fd.cap)
		c.addScaled(-1, &fd.pre[0], r, fd.cap)
		c.finish()
		fd.keep(true)
		if d != nil && hasDelta {
			fd.propagated(d, r, lg)
			fd.keep(false)
		}
		fd.best.store(&fd.pre[2], r, fd.cap)
	}
}

// propagated sets fd.cand to W_g delta + (W_g - W_f) h_f + (b_g - b_f)
// for row r, W_g from lg.
func (fd *ForwardDiff) propagated(d *layerDiff, r int, lg *nn.Layer) {
	c := &fd.cand
	c.reset(fd.used)
	c.c, c.abs = d.dB[r], math.Abs(d.dB[r])
	w := lg.W.RawMatrix()
	for t, wt := range w.Data[r*w.Stride : r*w.Stride+w.Cols] {
		c.addScaled(wt, &fd.in[2], t, fd.cap)
	}
	for t, wt := range d.dW[r*d.cols : (r+1)*d.cols] {
		c.addScaled(wt, &fd.in[0], t, fd.cap)
	}
	// The parts of W_g - W_f and b_g - b_f that float64 differences lost.
	extra := 0.0
	if d.rB != nil {
		extra = d.rB[r]
	}
	if d.rW != nil {
		h := &fd.in[0]
		for t, e := range d.rW[r*d.cols : (r+1)*d.cols] {
			extra += e * max(math.Abs(h.lo[t]), math.Abs(h.hi[t]))
		}
	}
	if extra > 0 {
		c.rad = outward.AddUp(c.rad, outward.UpBy(extra, outward.DotErr(extra, d.cols)))
	}
	c.finish()
}

// deltaPost sets the forms of h_g - h_f of a layer of the given width in
// fd.post[2] from those of the networks (fd.post) and of the
// pre-activation difference d (fd.pre[2]).
func (fd *ForwardDiff) deltaPost(af, ag nn.Activation, width int) {
	c := &fd.cand
	for r := range width {
		c.reset(fd.used)
		c.addScaled(1, &fd.post[1], r, fd.cap)
		c.addScaled(-1, &fd.post[0], r, fd.cap)
		c.finish()
		fd.keep(true)
		grew := false
		switch {
		case af.Kind != ag.Kind:
		case af.Kind == nn.Identity:
			c.load(&fd.pre[2], r, fd.cap, fd.used)
			fd.keep(false)
		default:
			grew = fd.reluPair(r)
		}
		fd.best.store(&fd.post[2], r, fd.cap)
		if grew && len(fd.best.a) > fd.used {
			fd.used++
		}
	}
}

// reluPair offers the relaxations of delta = relu(xi_g) - relu(xi_f) in
// terms of d = xi_g - xi_f for neuron r and reports whether it offered a
// form with a new symbol. By
//
//	delta - d = max(-xi_g, 0) - max(-xi_f, 0),
//
// delta = d where both are active, 0 where both are inactive, and
// otherwise lo(d) <= delta <= hi(d) with lo(d) = d if f is active else
// min(d, 0), hi(d) = d if g is active else max(d, 0); it is enclosed as
// mu d + [a, b] for the best of a few slopes mu.
func (fd *ForwardDiff) reluPair(r int) bool {
	fAct, gAct := fd.zlo[0][r] >= 0, fd.zlo[1][r] >= 0
	fOff, gOff := fd.zhi[0][r] <= 0, fd.zhi[1][r] <= 0
	c := &fd.cand
	switch {
	case fAct && gAct:
		c.load(&fd.pre[2], r, fd.cap, fd.used)
		fd.keep(false)
		return false
	case fOff && gOff:
		c.zero(fd.used)
		fd.keep(false)
		return false
	}
	lo := func(d float64) float64 { return min(d, 0) }
	if fAct {
		lo = func(d float64) float64 { return d }
	}
	hi := func(d float64) float64 { return max(d, 0) }
	if gAct {
		hi = func(d float64) float64 { return d }
	}
	// fd.best holds the first candidate; d goes in a spare form.
	dl, du := fd.pre[2].lo[r], fd.pre[2].hi[r]
	dr := max(outward.SubUp(du, fd.pre[2].c[r]), outward.SubUp(fd.pre[2].c[r], dl))
	bestMu, bestW := -1.0, math.Inf(1)
	for _, mu := range [3]float64{0, 1, du / (du - dl)} {
		if !(mu >= 0 && mu <= 1) {
			continue
		}
		a, b := pairEnclosure(mu, dl, du, lo, hi)
		if w := mu*dr + (b-a)/2; w < bestW {
			bestMu, bestW = mu, w
		}
	}
	if !(bestW < fd.best.r) {
		return false
	}
	a, b := pairEnclosure(bestMu, dl, du, lo, hi)
	var d zform
	d.a = fd.dform[:0]
	d.load(&fd.pre[2], r, fd.cap, fd.used)
	c.parallel(&d, bestMu, a, b)
	fd.keep(false)
	return true
}
