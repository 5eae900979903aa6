package sdp

import "math"

// blockMat is a block-diagonal matrix laid out like the model: one dense
// n x n row-major slice per PSD block, one vector for all LP coordinates.
type blockMat struct {
	psd [][]float64
	lp  []float64
}

// newBlockMat allocates a zero block matrix shaped like md.
func newBlockMat(md *model) blockMat {
	b := blockMat{psd: make([][]float64, len(md.psd))}
	for k, pb := range md.psd {
		b.psd[k] = make([]float64, pb.n*pb.n)
	}
	if md.lp != nil {
		b.lp = make([]float64, md.lp.n)
	}
	return b
}

// copyFrom sets b = a.
func (b blockMat) copyFrom(a blockMat) {
	for k := range b.psd {
		copy(b.psd[k], a.psd[k])
	}
	copy(b.lp, a.lp)
}

// apply sets out[i] = F_{i+1} • M for every constraint, where M is the
// block matrix mat (not necessarily symmetric: F • M = F • sym(M)).
func (md *model) apply(mat blockMat, out []float64) {
	clear(out)
	for k, pb := range md.psd {
		pb.apply(mat.psd[k], out)
	}
	if lb := md.lp; lb != nil {
		for j := 0; j < lb.n; j++ {
			v := mat.lp[j]
			for t := lb.ptr[j]; t < lb.ptr[j+1]; t++ {
				out[lb.con[t]] += lb.val[t] * v
			}
		}
	}
}

// apply adds F_i • M over this block to out[i].
func (pb *psdBlock) apply(mat []float64, out []float64) {
	if lf := pb.lift; lf != nil {
		lf.apply(pb.n, mat, out)
		return
	}
	for _, pc := range pb.pieces {
		out[pc.con] += pc.dot(mat, pb.n)
	}
}

// dot returns F • M for the piece's matrix F and the dense n x n matrix M.
func (pc *piece) dot(mat []float64, n int) float64 {
	s := entriesDot(pc.ent, mat, n)
	for _, f := range pc.fac {
		s += f.d * f.quad(mat, n)
	}
	return s
}

// quad returns u^T M u for the factor's vector u and the dense n x n M.
func (f *factor) quad(mat []float64, n int) float64 {
	q := 0.0
	for a, ia := range f.idx {
		row := mat[int(ia)*n:]
		r := 0.0
		for b, ib := range f.idx {
			r += row[ib] * f.val[b]
		}
		q += f.val[a] * r
	}
	return q
}

// entriesDot returns S • M for the symmetric matrix S stored as upper
// triangle entries and the dense n x n matrix M (not necessarily
// symmetric).
func entriesDot(ents []entry, mat []float64, n int) float64 {
	s := 0.0
	for _, e := range ents {
		i, j := int(e.i), int(e.j)
		if i == j {
			s += e.v * mat[i*n+i]
		} else {
			s += e.v * (mat[i*n+j] + mat[j*n+i])
		}
	}
	return s
}

// combine sets out = sum_i F_{i+1} dx[i] + theta R0, where R0 = -(F_0 +
// lambda I) is the direction the primal residual keeps.
func (md *model) combine(dx []float64, theta float64, r0lp []float64, out blockMat) {
	for k, pb := range md.psd {
		d := out.psd[k]
		if pb.lift != nil {
			pb.lift.combine(pb, dx, theta, d)
			continue
		}
		clear(d)
		n := pb.n
		for _, pc := range pb.pieces {
			pc.addTo(d, n, dx[pc.con])
		}
		if theta != 0 {
			pb.r0.addTo(d, n, theta)
		}
		symmetrizeFromUpper(d, n)
	}
	if lb := md.lp; lb != nil {
		for j := 0; j < lb.n; j++ {
			s := 0.0
			if theta != 0 {
				s = theta * r0lp[j]
			}
			for t := lb.ptr[j]; t < lb.ptr[j+1]; t++ {
				s += lb.val[t] * dx[lb.con[t]]
			}
			out.lp[j] = s
		}
	}
}

// addTo adds alpha*F to the upper triangle of the dense matrix d.
func (pc *piece) addTo(d []float64, n int, alpha float64) {
	if alpha == 0 {
		return
	}
	for _, e := range pc.ent {
		d[int(e.i)*n+int(e.j)] += alpha * e.v
	}
	for _, f := range pc.fac {
		for a, ia := range f.idx {
			wa := alpha * f.d * f.val[a]
			for b, ib := range f.idx {
				if ia <= ib {
					d[int(ia)*n+int(ib)] += wa * f.val[b]
				}
			}
		}
	}
}

// symmetrizeFromUpper copies the strict upper triangle of d to the lower.
func symmetrizeFromUpper(d []float64, n int) {
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d[j*n+i] = d[i*n+j]
		}
	}
}

// symmetrizeFromLower copies the strict lower triangle of d to the upper.
func symmetrizeFromLower(d []float64, n int) {
	for i := 0; i < n; i++ {
		row := d[i*n:]
		for j := 0; j < i; j++ {
			d[j*n+i] = row[j]
		}
	}
}

// frobDot returns the trace inner product a • b of two block matrices,
// sum over all entries of a .* b.
func frobDot(a, b blockMat) float64 {
	s := 0.0
	for k := range a.psd {
		s += dot(a.psd[k], b.psd[k])
	}
	if a.lp != nil {
		s += dot(a.lp, b.lp)
	}
	return s
}

// frobNorm returns ||a||_F.
func frobNorm(a blockMat) float64 { return math.Sqrt(frobDot(a, a)) }

// f0Dot returns F_0 • M.
func (md *model) f0Dot(mat blockMat) float64 {
	s := 0.0
	for k, pb := range md.psd {
		s += entriesDot(pb.f0, mat.psd[k], pb.n)
	}
	if lb := md.lp; lb != nil {
		s += dot(lb.f0, mat.lp)
	}
	return s
}

// norm2 returns the Euclidean norm of v.
func norm2(v []float64) float64 { return math.Sqrt(dot(v, v)) }
