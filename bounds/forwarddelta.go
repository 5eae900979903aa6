package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// The difference forms of ForwardDiff: per neuron, candidate forms are
// built in fd.scratch and offered; the one with the best bound on the box
// (the largest lower end for a lower form, the smallest upper end for an
// upper one) is kept. Each candidate is sound by itself, so the choice is
// only a heuristic.

// offer moves the constant of the candidate row (fd.scratch) by err
// outward and keeps it as neuron r's form in fs if first or better than
// the form there.
func (fd *ForwardDiff) offer(fs *formSet, r int, err float64, up, first bool) {
	row := fd.scratch
	n0 := len(row) - 1
	if up {
		row[n0] = outward.UpBy(row[n0], err)
	} else {
		row[n0] = outward.DownBy(row[n0], err)
	}
	lo, hi, mag := fd.box.concretise(row)
	if !first && (up && hi >= fs.hi[r] || !up && lo <= fs.lo[r]) {
		return
	}
	copy(fs.row(r, fd.s), row)
	fs.lo[r], fs.hi[r], fs.mag[r] = lo, hi, mag
}

// netsDiff offers, as neuron r's forms of dst, a - b between the forms of
// a and b: lower(a) - upper(b) and upper(a) - lower(b).
func (fd *ForwardDiff) netsDiff(dst *bound, r int, a, b *bound, first bool) {
	s := fd.s
	e := fd.box.subForm(fd.scratch, a.lower.row(r, s), b.upper.row(r, s), a.lower.mag[r], b.upper.mag[r])
	fd.offer(&dst.lower, r, e, false, first)
	e = fd.box.subForm(fd.scratch, a.upper.row(r, s), b.lower.row(r, s), a.upper.mag[r], b.lower.mag[r])
	fd.offer(&dst.upper, r, e, true, first)
}

// deltaPre sets the forms of xi_g - xi_f of layer k (equal output widths)
// in fd.pre[2]: the difference of the two networks' forms and, when the
// layers have the same shape and the difference of their inputs is
// tracked (hasDelta), the difference propagation
//
//	W_g delta + (W_g - W_f) h_f + (b_g - b_f).
//
// (Offering the other form too, W_f delta + (W_g - W_f) h_g + ..., moved
// the output bounds of the tests' random and ACAS Xu pairs by under 0.1%
// for a third more time: it is not offered.)
func (fd *ForwardDiff) deltaPre(k int, lf, lg *nn.Layer, hasDelta bool) {
	d := fd.diffs[k]
	for r := range lf.Out() {
		fd.netsDiff(&fd.pre[2], r, &fd.pre[1], &fd.pre[0], true)
		if d == nil || !hasDelta {
			continue
		}
		fd.offerDelta(d, r, lg, false)
		fd.offerDelta(d, r, lg, true)
	}
}

// offerDelta offers W_g delta + (W_g - W_f) h_f + (b_g - b_f) for row r,
// W_g from lg.
func (fd *ForwardDiff) offerDelta(d *layerDiff, r int, lg *nn.Layer, up bool) {
	h := &fd.in[0]
	row := fd.scratch
	zeroForm(row)
	row[fd.n0] = d.dB[r]
	w := lg.W.RawMatrix()
	abs := accum(row, w.Data[r*w.Stride:r*w.Stride+w.Cols], &fd.in[2], up)
	abs += accum(row, d.dW[r*d.cols:(r+1)*d.cols], h, up)
	abs += math.Abs(d.dB[r])
	// The parts of W_g - W_f and b_g - b_f that float64 differences lost.
	extra := 0.0
	if d.rB != nil {
		extra = d.rB[r]
	}
	if d.rW != nil {
		for t, e := range d.rW[r*d.cols : (r+1)*d.cols] {
			extra += e * max(math.Abs(h.lower.lo[t]), math.Abs(h.upper.hi[t]))
		}
	}
	err := fd.box.margin(abs, 2*d.cols+1)
	if extra > 0 {
		err = outward.AddUp(err, outward.UpBy(extra, outward.DotErr(extra, d.cols)))
	}
	fd.offer(fd.pre[2].set(up), r, err, up, false)
}

// deltaPost sets the forms of h_g - h_f of a layer of the given width in
// fd.post[2] from those of the networks (fd.pre, fd.post) and of the
// pre-activation difference d (fd.pre[2]).
func (fd *ForwardDiff) deltaPost(af, ag nn.Activation, width int) {
	s := fd.s
	pd := &fd.pre[2]
	both := af.Kind == ag.Kind
	for r := range width {
		fd.netsDiff(&fd.post[2], r, &fd.post[1], &fd.post[0], true)
		if !both {
			continue
		}
		dl, du := pd.lower.row(r, s), pd.upper.row(r, s)
		if af.Kind == nn.Identity {
			copy(fd.scratch, dl)
			fd.offer(&fd.post[2].lower, r, 0, false, false)
			copy(fd.scratch, du)
			fd.offer(&fd.post[2].upper, r, 0, true, false)
			continue
		}
		// ReLU: min(d, 0) <= delta <= max(d, 0) always, and
		//   delta - d = max(-xi_g, 0) - max(-xi_f, 0),
		// so delta >= d where f is active, delta <= d where g is.
		e := fd.box.negPartLower(fd.scratch, dl, pd.lower.lo[r], pd.lower.hi[r], pd.lower.mag[r])
		fd.offer(&fd.post[2].lower, r, e, false, false)
		e = fd.box.reluUpper(fd.scratch, du, pd.upper.lo[r], pd.upper.hi[r], pd.upper.mag[r])
		fd.offer(&fd.post[2].upper, r, e, true, false)
		if fd.zlo[0][r] >= 0 {
			copy(fd.scratch, dl)
			fd.offer(&fd.post[2].lower, r, 0, false, false)
		}
		if fd.zlo[1][r] >= 0 {
			copy(fd.scratch, du)
			fd.offer(&fd.post[2].upper, r, 0, true, false)
		}
	}
}
