package bounds

import (
	"github.com/nnbound/nnbound/internal/dense"
	"github.com/nnbound/nnbound/nn"
)

// The transposed convolution of a batch of rows as one matrix product,
// each kernel offset's rows of the product added at a shift.
//
// Per dimension (stride s, dilation d, padding p), tap t of the kernel
// reads input index s o + t d - p at output index o. Writing
// t d - p = s q_t + f_t with the phase f_t in [0, s),
//
//	input index = s (o + q_t) + f_t,
//
// so within the grid of inputs of one phase, tap t moves output o to
// o + q_t: a shift. With the coefficients of a chunk of rows laid out as
// Y[m, oh, ow, r] (output channel, the window's output rows and columns,
// the columns padded to the grid's width, batch row innermost) and each
// phase's inputs as P[ci, a, b, r] on the same grid, K^T lam_r is
//
//	P[(ci, th, tw) shifted] += X Y,  X[(th, tw, ci), m] = K[m, ci, th, tw],
//
// one product of (KH KW InC) x OutC by OutC x (rows x width x R) whose
// rows of C are each at its own offset (dense.DgemmRows), then one copy
// of each phase's grid into the inputs. Each entry of dst is a sum of at
// most OutC KH KW products evaluated in some order; the rounding bound of
// graphback.go's affine step, for at most M.Out() + KH KW terms, holds
// for any order.

// convT is a convolution (one group) with its kernel as X and the taps
// of its two dimensions.
type convT struct {
	c    *nn.Conv2D
	x    []float64
	h, w taps
}

// taps are the kernel offsets of one dimension of a convolution: tap t
// reads input s (o + q[t]) + phase[slot[t]] at output o.
type taps struct {
	q, slot    []int
	phase      []int // the phases of the taps, each once
	qmin, qmax int
}

// newTaps returns the taps of a kernel of size n, stride s, dilation d and
// padding p.
func newTaps(n, s, d, p int) taps {
	var tp taps
	for t := range n {
		e := t*d - p
		q := e / s
		if e < 0 && q*s != e {
			q-- // the floor
		}
		f, slot := e-q*s, -1
		for i, g := range tp.phase {
			if g == f {
				slot = i
			}
		}
		if slot < 0 {
			slot = len(tp.phase)
			tp.phase = append(tp.phase, f)
		}
		if t == 0 || q < tp.qmin {
			tp.qmin = q
		}
		if t == 0 || q > tp.qmax {
			tp.qmax = q
		}
		tp.q, tp.slot = append(tp.q, q), append(tp.slot, slot)
	}
	return tp
}

// convScratch is the scratch space of addTransposed, grown as needed.
type convScratch struct {
	y, p []float64
	off  []int
}

// maxConvScratch is the most floats of Y and P for one product; the rows
// of a batch are taken in chunks below it (at least one row), so that
// they stay in the cache between the product and the copy.
const maxConvScratch = 1 << 16

// newConvT returns c with X, or nil for a grouped convolution.
func newConvT(c *nn.Conv2D) *convT {
	if c.Groups != 1 {
		return nil
	}
	kk := c.KH * c.KW
	x := make([]float64, c.InC*kk*c.OutC)
	for m := range c.OutC {
		for ci := range c.InC {
			for t := range kk {
				x[(t*c.InC+ci)*c.OutC+m] = c.Kernel[(m*c.InC+ci)*kk+t]
			}
		}
	}
	return &convT{c: c, x: x,
		h: newTaps(c.KH, c.Stride[0], c.Dil[0], c.Pad[0]),
		w: newTaps(c.KW, c.Stride[1], c.Dil[1], c.Pad[1])}
}

// addTransposed adds K^T lam_r to dst_r for the rows of a batch (lam_r
// and dst_r the r-th blocks of c.Out() and c.In() values), lam zero
// outside the window band of outputs.
func (t *convT) addTransposed(dst, lam []float64, rows int, band window, s *convScratch) {
	c := t.c
	nb, nc := band.hi-band.lo, band.chi-band.clo
	if nb <= 0 || nc <= 0 {
		return
	}
	gh := nb + t.h.qmax - t.h.qmin // rows of a phase's grid
	gw := nc + t.w.qmax - t.w.qmin // its columns, and Y's
	slots := len(t.h.phase) * len(t.w.phase)
	perRow := slots*c.InC*gh*gw + c.OutC*nb*gw
	chunk := max(1, min(rows, maxConvScratch/perRow))
	for r0 := 0; r0 < rows; r0 += chunk {
		nr := min(chunk, rows-r0)
		cols := nb * gw * nr
		ys := grow(&s.y, c.OutC*cols)
		for m := range c.OutC {
			for a := range nb { // a block of Y of gw nr floats, in L1
				at := (m*c.OutH+band.lo+a)*c.OutW + band.clo
				yr := ys[(m*nb+a)*gw*nr:][:gw*nr]
				for r := range nr {
					for b, v := range lam[(r0+r)*c.Out()+at:][:nc] {
						yr[b*nr+r] = v
					}
				}
				clear(yr[nc*nr:])
			}
		}
		// The shift of the last tap runs past its grid's end by at most
		// the spread of the column shifts (onto zeros of Y).
		plane := gh * gw * nr
		ps := grow(&s.p, slots*c.InC*plane+(t.w.qmax-t.w.qmin)*nr)
		clear(ps)
		off := t.offsets(s, plane, gw, nr)
		dense.Impl{}.DgemmRows(len(off), cols, c.OutC, t.x, c.OutC, ys, cols, ps, off)
		t.gather(dst[r0*c.In():], ps, nr, band, gh, gw)
	}
}

// offsets returns the offset in P of each row (th, tw, ci) of X for
// grids of plane floats per channel and gw columns, nr rows innermost.
func (t *convT) offsets(s *convScratch, plane, gw, nr int) []int {
	c := t.c
	if cap(s.off) < c.KH*c.KW*c.InC {
		s.off = make([]int, c.KH*c.KW*c.InC)
	}
	off := s.off[:c.KH*c.KW*c.InC]
	for th := range c.KH {
		for tw := range c.KW {
			slot := t.h.slot[th]*len(t.w.phase) + t.w.slot[tw]
			shift := ((t.h.q[th]-t.h.qmin)*gw + t.w.q[tw] - t.w.qmin) * nr
			for ci := range c.InC {
				off[(th*c.KW+tw)*c.InC+ci] = (slot*c.InC+ci)*plane + shift
			}
		}
	}
	return off
}

// gather adds each phase's grid P (gh x gw per channel, nr rows
// innermost) for the outputs in band to the inputs of nr rows of dst.
func (t *convT) gather(dst, ps []float64, nr int, band window, gh, gw int) {
	c := t.c
	s0, s1 := c.Stride[0], c.Stride[1]
	in := convWindow(c, band)
	for sh, fh := range t.h.phase {
		for sw, fw := range t.w.phase {
			slot := sh*len(t.w.phase) + sw
			b0, b1 := 0, gw // the columns of the grid inside the window
			for b0 < b1 && s1*(b0+t.w.qmin+band.clo)+fw < in.clo {
				b0++
			}
			for b1 > b0 && s1*(b1-1+t.w.qmin+band.clo)+fw >= in.chi {
				b1--
			}
			for ci := range c.InC {
				for a := range gh { // a block of P of gw nr floats, in L1
					ih := s0*(a+t.h.qmin+band.lo) + fh
					if ih < in.lo || ih >= in.hi {
						continue
					}
					pr := ps[((slot*c.InC+ci)*gh+a)*gw*nr:][:gw*nr]
					// The entry of column b = 0 (outside the input where b0 > 0).
					base := ci*c.InH*c.InW + ih*c.InW + s1*(t.w.qmin+band.clo) + fw
					for r := range nr {
						d := dst[r*c.In():]
						for b := b0; b < b1; b++ {
							d[base+s1*b] += pr[b*nr+r]
						}
					}
				}
			}
		}
	}
}

// grow returns *s with at least n floats, reallocated if shorter.
func grow(s *[]float64, n int) []float64 {
	if cap(*s) < n {
		*s = make([]float64, n)
	}
	*s = (*s)[:n]
	return *s
}
