package sdptest

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/sdp"
)

// Block matrices are slices of gonum symmetric matrices, one per block of
// the problem; a diagonal block is a diagonal SymDense.

// combine returns sum_i F_i x_i, minus F_0 if withF0.
func combine(p *sdp.Problem, x []float64, withF0 bool) []*mat.SymDense {
	out := make([]*mat.SymDense, len(p.Blocks))
	for b, blk := range p.Blocks {
		out[b] = mat.NewSymDense(blk.Size, nil)
	}
	add := func(i int, w float64) {
		for _, e := range p.F[i] {
			s := out[e.Block]
			s.SetSym(e.I, e.J, s.At(e.I, e.J)+w*e.V)
		}
		if i < len(p.Factors) {
			for _, f := range p.Factors[i] {
				s := out[f.Block]
				for a, ia := range f.U.Index {
					for b, ib := range f.U.Index {
						if ia <= ib {
							s.SetSym(ia, ib, s.At(ia, ib)+w*f.D*f.U.Value[a]*f.U.Value[b])
						}
					}
				}
			}
		}
	}
	for i, v := range x {
		add(i+1, v)
	}
	if withF0 {
		add(0, -1)
	}
	return out
}

// ymat converts Result.Y to symmetric blocks (the average of Y and Y^T)
// and returns the largest asymmetry |Y_ij - Y_ji| too.
func ymat(p *sdp.Problem, y [][]float64) ([]*mat.SymDense, float64) {
	out := make([]*mat.SymDense, len(p.Blocks))
	asym := 0.0
	for b, blk := range p.Blocks {
		n := blk.Size
		s := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			if blk.Diagonal {
				s.SetSym(i, i, y[b][i])
				continue
			}
			for j := i; j < n; j++ {
				u, l := y[b][i*n+j], y[b][j*n+i]
				asym = max(asym, math.Abs(u-l))
				s.SetSym(i, j, (u+l)/2)
			}
		}
		out[b] = s
	}
	return out, asym
}

// inner returns F_i • Y, including the factors of F_i.
func inner(p *sdp.Problem, i int, y []*mat.SymDense) float64 {
	v := 0.0
	for _, e := range p.F[i] {
		w := e.V * y[e.Block].At(e.I, e.J)
		if e.I != e.J {
			w *= 2
		}
		v += w
	}
	if i < len(p.Factors) {
		for _, f := range p.Factors[i] {
			s := y[f.Block]
			q := 0.0
			for a, ia := range f.U.Index {
				for b, ib := range f.U.Index {
					q += f.U.Value[a] * s.At(ia, ib) * f.U.Value[b]
				}
			}
			v += f.D * q
		}
	}
	return v
}

// normF returns ||F_i||_F, factors included.
func normF(p *sdp.Problem, i int) float64 {
	x := make([]float64, len(p.C))
	withF0 := i == 0
	if !withF0 {
		x[i-1] = 1
	}
	return frob(combine(p, x, withF0))
}

// maxNormF returns max_i ||F_i||_F over i >= 1.
func maxNormF(p *sdp.Problem) float64 {
	m := 0.0
	for i := range p.C {
		m = max(m, normF(p, i+1))
	}
	return m
}

// minEig returns the smallest eigenvalue over all blocks.
func minEig(blocks []*mat.SymDense) float64 {
	m := math.Inf(1)
	for _, s := range blocks {
		var es mat.EigenSym
		if s.SymmetricDim() == 0 {
			continue
		}
		if !es.Factorize(s, false) {
			return math.NaN()
		}
		for _, v := range es.Values(nil) {
			m = min(m, v)
		}
	}
	return m
}

// frob returns the Frobenius norm over all blocks.
func frob(blocks []*mat.SymDense) float64 {
	v := 0.0
	for _, s := range blocks {
		n := s.SymmetricDim()
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				a := s.At(i, j)
				v += a * a
			}
		}
	}
	return math.Sqrt(v)
}

func dotVec(a, b []float64) float64 {
	v := 0.0
	for i := range a {
		v += a[i] * b[i]
	}
	return v
}

func norm(a []float64) float64 { return math.Sqrt(dotVec(a, a)) }
