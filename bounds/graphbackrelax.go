package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// relax steps through the relaxed nonlinear node k, and reports whether
// it kept lam: the coefficients of an elementwise node (each output's
// lines read the input of its index) replace lam in place.
func (w *backWork) relax(k int, lam []float64, sp [][2]int) (kept bool) {
	b := w.b
	rel := b.rel[k]
	ins := b.g.Nodes[k].Inputs
	v := ins[0]
	n, m := len(rel.up), b.g.Size(v)
	mag := b.mags[v]
	inPlace := rel.lowAt == nil && rel.upAt == nil && m == n
	dst := lam
	if !inPlace {
		dst = w.get(w.rows * m)
	}
	var dst2, mag2, out2 []float64 // the second input of a pair node
	if rel.lowB != nil {
		dst2, mag2 = w.get(w.rows*b.g.Size(ins[1])), b.mags[ins[1]]
	}
	relC, tinyC := 2*float64(rel.fanIn+1)*outward.Unit, float64(rel.fanIn)*outward.Tiny
	for r := range w.rows {
		row, out := lam[r*n:(r+1)*n], dst[r*m:(r+1)*m]
		if dst2 != nil {
			out2 = dst2[r*len(mag2) : (r+1)*len(mag2)]
		}
		s, abs, perr := w.c[r], math.Abs(w.c[r]), 0.0
		for _, p := range sp {
			for i := p[0]; i < p[1]; i++ {
				l := row[i]
				if l == 0 {
					continue
				}
				ln, j, lb := rel.low[i], at(rel.lowAt, i), rel.lowB
				if l >= 0 {
					ln, j, lb = rel.up[i], at(rel.upAt, i), rel.upB
				}
				t := l * ln.A
				switch {
				case inPlace:
					out[i] = t // out is row
				case t != 0:
					out[j] += t
				}
				if t != 0 {
					perr += (relC*math.Abs(t) + tinyC) * mag[j]
				}
				if lb != nil && lb[i] != 0 {
					p := l * lb[i]
					out2[j] += p
					perr += (relC*math.Abs(p) + tinyC) * mag2[j]
				}
				c := l * ln.C
				s += c
				abs += math.Abs(c)
			}
		}
		w.c[r] = s
		err := outward.AddUp(outward.DotErr(abs, n), outward.MulUp(perr, sumFactor(n)))
		w.e[r] = outward.AddUp(w.e[r], err)
	}
	band := w.band[k+1].to(b.g.Shape(k+1), b.g.Shape(v))
	if mp, ok := b.g.Nodes[k].Op.(*nn.MaxPool); ok {
		band = poolRows(mp.Pool2D, w.band[k+1])
	} else if rel.lowAt != nil {
		band = fullBand(b.g.Shape(v))
	}
	w.merge(v, dst, band)
	if dst2 != nil {
		w.merge(ins[1], dst2, band.to(b.g.Shape(v), b.g.Shape(ins[1])))
	}
	return inPlace
}
