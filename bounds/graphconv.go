package bounds

import (
	"github.com/nnbound/nnbound/internal/dense"
	"github.com/nnbound/nnbound/nn"
	"gonum.org/v1/gonum/blas"
)

// The transposed convolution of a batch of rows as one matrix product.
//
// For rows r whose coefficients lam_r on a convolution's output are zero
// outside a band of rows, K^T lam_r is, per kernel offset (th, tw),
//
//	dst_r[ci, oh s0 - p0 + th d0, ow s1 - p1 + tw d1] += Z[(ci, th, tw), (r, oh, ow)],
//	Z = X Y,  X[(ci, th, tw), m] = K[m, ci, th, tw],  Y[m, (r, oh, ow)] = lam_r[m, oh, ow],
//
// oh over the band: a product of (InC KH KW) x OutC by OutC x (R x band)
// (internal/dense, with AVX2 and FMA where the CPU has them), then a
// scatter. Each entry of dst is a sum of at most OutC KH KW products
// evaluated in some order; the rounding bound of graphback.go's affine
// step, for at most M.Out() + KH KW terms, holds for any order.

// convT is a convolution (one group) with its kernel as X.
type convT struct {
	c *nn.Conv2D
	x []float64
}

// maxConvScratch is the most floats of Z (and of Y) for one product; the
// rows of a batch are taken in chunks below it (at least one row), so
// that Z stays in the cache between the product and the scatter.
const maxConvScratch = 1 << 16

// newConvT returns c with X, or nil for a grouped convolution.
func newConvT(c *nn.Conv2D) *convT {
	if c.Groups != 1 {
		return nil
	}
	kk := c.KH * c.KW
	x := make([]float64, c.InC*kk*c.OutC)
	for m := range c.OutC {
		for q := range c.InC * kk {
			x[q*c.OutC+m] = c.Kernel[m*c.InC*kk+q]
		}
	}
	return &convT{c: c, x: x}
}

// addTransposed adds K^T lam_r to dst_r for the rows of a batch (lam_r
// and dst_r the r-th blocks of c.Out() and c.In() values), lam zero
// outside the output rows band; y and z are scratch space, grown as
// needed.
func (t *convT) addTransposed(dst, lam []float64, rows int, band rowBand, y, z *[]float64) {
	c := t.c
	p := (band.hi - band.lo) * c.OutW
	q := c.InC * c.KH * c.KW
	if p <= 0 {
		return
	}
	chunk := max(1, min(rows, maxConvScratch/(q*p)))
	for r0 := 0; r0 < rows; r0 += chunk {
		nr := min(chunk, rows-r0)
		cols := nr * p
		zs := grow(z, q*cols)
		outPlane := c.OutH * c.OutW
		if nr == 1 { // Y is a block of lam_r, read in place
			off := r0*c.Out() + band.lo*c.OutW
			dense.Impl{}.DgemmSerial(blas.NoTrans, blas.NoTrans, q, cols, c.OutC, 1, t.x, c.OutC, lam[off:], outPlane, 0, zs, cols)
			t.scatter(dst[r0*c.In():], zs, nr, band)
			continue
		}
		ys := grow(y, c.OutC*cols)
		for r := range nr {
			src := lam[(r0+r)*c.Out():]
			for m := range c.OutC {
				off := m*outPlane + band.lo*c.OutW
				copy(ys[m*cols+r*p:m*cols+(r+1)*p], src[off:off+p])
			}
		}
		dense.Impl{}.DgemmSerial(blas.NoTrans, blas.NoTrans, q, cols, c.OutC, 1, t.x, c.OutC, ys, cols, 0, zs, cols)
		t.scatter(dst[r0*c.In():], zs, nr, band)
	}
}

// scatter adds the columns of Z for nr rows to their inputs.
func (t *convT) scatter(dst, z []float64, nr int, band rowBand) {
	c := t.c
	p := (band.hi - band.lo) * c.OutW
	cols, inPlane := nr*p, c.InH*c.InW
	for ci := range c.InC {
		for th := range c.KH {
			for tw := range c.KW {
				zr := z[((ci*c.KH+th)*c.KW+tw)*cols:]
				ow0, ow1 := 0, c.OutW // the outputs whose input column lies inside
				for ow0 < ow1 && ow0*c.Stride[1]+tw*c.Dil[1]-c.Pad[1] < 0 {
					ow0++
				}
				for ow1 > ow0 && (ow1-1)*c.Stride[1]+tw*c.Dil[1]-c.Pad[1] >= c.InW {
					ow1--
				}
				for r := range nr {
					d := dst[r*c.In()+ci*inPlane:]
					for oh := band.lo; oh < band.hi; oh++ {
						ih := oh*c.Stride[0] - c.Pad[0] + th*c.Dil[0]
						if ih < 0 || ih >= c.InH {
							continue
						}
						zs := zr[r*p+(oh-band.lo)*c.OutW:]
						base := ih*c.InW + tw*c.Dil[1] - c.Pad[1]
						if s1 := c.Stride[1]; s1 != 1 {
							for ow := ow0; ow < ow1; ow++ {
								d[base+ow*s1] += zs[ow]
							}
							continue
						}
						dd, zz := d[base+ow0:base+ow1], zs[ow0:ow1]
						for i, v := range zz {
							dd[i] += v
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
