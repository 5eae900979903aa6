package bounds

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/nnbound/nnbound/nn"
)

// Optimised slopes (alpha-CROWN).
//
// The back-substitution bound of a target t (an upper bound of s xi^k_t,
// s = ±1) is a function B(a) of the slopes a of the free lines (slopes.go)
// of every layer below k:
//
//	Lam^{k-1} = s W^k_t,  c = s b^k_t
//	for j = k-1 .. 0:
//	    Xi^j_i = Lam^j_i a^j_i                    (free side chosen: line a z)
//	    Xi^j_i = Lam^j_i A^j_i,  c += Lam^j_i C^j_i   (otherwise: the layer's line)
//	    c += Xi^j . b^j,  Lam^{j-1} = Xi^j W^j
//	B = c + sum_i max(Lam^{-1}_i lo_i, Lam^{-1}_i hi_i)
//
// slopeOpt evaluates B and its (sub)gradient in a by this forward pass and
// the reverse one, for a batch of targets at once (each with its own
// slopes), and lowers B by projected Adam steps. This runs in plain
// float64: it only chooses slopes. The bound returned is recomputed from
// the best slopes found by the rigorous back-substitution (backsub.go),
// which clamps every slope to its range; it is sound whatever the
// optimiser did.
type slopeOpt struct {
	f      *nn.Network
	in     []Interval
	rels   []relaxation
	slopes []*rowSlopes // per layer j < k
	k      int
	rows   []int     // target neurons
	sign   []float64 // +1: upper bound, -1: lower bound (of -xi)
	// Work space: coefficients on z^j (post) and xi^j (pre) per layer, on
	// the input, and the constants; gradients alike.
	lamZ, lamXi [][]float64
	lamX, c     []float64
	gZ          [][]float64
	gXi, gX     []float64
	grad        [][]float64
	adamM       [][]float64
	adamV       [][]float64
}

// OptimiseSettings tunes the slope optimisation of MethodOptimised.
//
// The zero value means the defaults (DefaultOptimiseSettings).
type OptimiseSettings struct {
	// Iterations is the number of projected gradient steps per layer.
	Iterations int
	// Step is Adam's step size on the slopes (which lie in ranges of
	// width 1 for ReLU).
	Step float64
}

// DefaultOptimiseSettings returns the defaults, chosen by measurement on
// the ACAS Xu benchmark (BENCHMARKS.md, section Bounds).
func DefaultOptimiseSettings() OptimiseSettings {
	return OptimiseSettings{Iterations: 20, Step: 0.2}
}

// orDefault returns s with zero fields replaced by their defaults.
func (s OptimiseSettings) orDefault() OptimiseSettings {
	d := DefaultOptimiseSettings()
	if s.Iterations == 0 {
		s.Iterations = d.Iterations
	}
	if s.Step == 0 {
		s.Step = d.Step
	}
	return s
}

// newSlopeOpt prepares the optimisation of the targets rows (with signs
// sign) of layer k of f, whose layers below have the relaxations rels and
// free lines free.
func newSlopeOpt(f *nn.Network, in []Interval, rels []relaxation, free []freeLines, k int, rows []int, sign []float64) *slopeOpt {
	R := len(rows)
	o := &slopeOpt{f: f, in: in, rels: rels, k: k, rows: rows, sign: sign,
		slopes: make([]*rowSlopes, k), lamZ: make([][]float64, k), lamXi: make([][]float64, k), gZ: make([][]float64, k),
		grad: make([][]float64, k), adamM: make([][]float64, k), adamV: make([][]float64, k)}
	maxN := len(in)
	for j := range k {
		n := f.Layers[j].Out()
		maxN = max(maxN, n)
		o.slopes[j] = newRowSlopes(&free[j], rels[j], R)
		o.lamZ[j] = make([]float64, R*n)
		o.lamXi[j] = make([]float64, R*n)
		o.gZ[j] = make([]float64, R*n)
		if free[j].count > 0 {
			o.grad[j] = make([]float64, R*n)
			o.adamM[j] = make([]float64, R*n)
			o.adamV[j] = make([]float64, R*n)
		}
	}
	o.lamX = make([]float64, R*len(in))
	o.c = make([]float64, R)
	o.gXi, o.gX = make([]float64, R*maxN), make([]float64, R*len(in))
	return o
}

// general returns the row-major r x c matrix on data.
func general(r, c int, data []float64) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: c, Data: data[:r*c]}
}

// forward computes the bounds B of every target into out.
func (o *slopeOpt) forward(out []float64) {
	R := len(o.rows)
	lk := o.f.Layers[o.k]
	w := lk.W.RawMatrix()
	z := o.lamZ[o.k-1]
	for r, t := range o.rows {
		sg := o.sign[r]
		for i := range w.Cols {
			z[r*w.Cols+i] = sg * w.Data[t*w.Stride+i]
		}
		o.c[r] = sg * lk.B[t]
	}
	for j := o.k - 1; j >= 0; j-- {
		l := o.f.Layers[j]
		n := l.Out()
		z, xi, rel, sl := o.lamZ[j], o.lamXi[j], o.rels[j], o.slopes[j]
		for r := range R {
			cr := 0.0
			for i := range n {
				v := z[r*n+i]
				if a, ok := sl.at(r, i, v >= 0); ok {
					xi[r*n+i] = v * a
				} else {
					ln := rel.Upper[i]
					if v < 0 {
						ln = rel.Lower[i]
					}
					xi[r*n+i] = v * ln.A
					cr += v * ln.C
				}
				cr += xi[r*n+i] * l.B[i]
			}
			o.c[r] += cr
		}
		below := o.lamX
		if j > 0 {
			below = o.lamZ[j-1]
		}
		m := l.In()
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, general(R, n, xi), l.W.RawMatrix(), 0, general(R, m, below))
	}
	m := len(o.in)
	for r := range R {
		s := o.c[r]
		for i, x := range o.in {
			v := o.lamX[r*m+i]
			s += max(v*x.Lo, v*x.Hi)
		}
		out[r] = s
	}
}

// backward computes the gradient of every B in the slopes into o.grad,
// after forward.
func (o *slopeOpt) backward() {
	R := len(o.rows)
	m := len(o.in)
	g := o.gX
	for r := range R {
		for i, x := range o.in {
			if o.lamX[r*m+i] >= 0 {
				g[r*m+i] = x.Hi
			} else {
				g[r*m+i] = x.Lo
			}
		}
	}
	for j := 0; j < o.k; j++ {
		l := o.f.Layers[j]
		n := l.Out()
		gxi := o.gXi[:R*n]
		// dB/dXi^j = G W^j^T + b^j.
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, general(R, m, g), l.W.RawMatrix(), 0, general(R, n, gxi))
		z, rel, sl, gr, gz := o.lamZ[j], o.rels[j], o.slopes[j], o.grad[j], o.gZ[j]
		for r := range R {
			for i := range n {
				q := gxi[r*n+i] + l.B[i]
				v := z[r*n+i]
				if a, ok := sl.at(r, i, v >= 0); ok {
					gr[r*n+i] = q * v
					gz[r*n+i] = q * a
					continue
				}
				if gr != nil {
					gr[r*n+i] = 0
				}
				ln := rel.Upper[i]
				if v < 0 {
					ln = rel.Lower[i]
				}
				gz[r*n+i] = q*ln.A + ln.C
			}
		}
		g, m = gz, n
	}
}

// run optimises the slopes for iters steps and returns the best bound of
// each target found in plain float64 (the slopes attaining it are left in
// o.slopes).
func (o *slopeOpt) run(set OptimiseSettings) []float64 {
	R := len(o.rows)
	best := make([]float64, R)
	cur := make([]float64, R)
	o.forward(best)
	saved := make([][]float64, o.k)
	for j, sl := range o.slopes {
		if o.grad[j] != nil {
			saved[j] = append([]float64(nil), sl.s...)
		}
	}
	const beta1, beta2, eps = 0.9, 0.999, 1e-12
	p1, p2 := 1.0, 1.0
	for it := range set.Iterations {
		o.backward()
		p1 *= beta1
		p2 *= beta2
		step := set.Step * math.Pow(0.95, float64(it))
		for j, sl := range o.slopes {
			gr := o.grad[j]
			if gr == nil {
				continue
			}
			mm, vv := o.adamM[j], o.adamV[j]
			for idx, gv := range gr {
				if gv == 0 && mm[idx] == 0 {
					continue
				}
				mm[idx] = beta1*mm[idx] + (1-beta1)*gv
				vv[idx] = beta2*vv[idx] + (1-beta2)*gv*gv
				mh, vh := mm[idx]/(1-p1), vv[idx]/(1-p2)
				i := idx % sl.n
				a := sl.s[idx] - step*mh/(math.Sqrt(vh)+eps)
				sl.s[idx] = min(max(a, sl.free.lo[i]), sl.free.hi[i])
			}
		}
		o.forward(cur)
		for r := range R {
			if !(cur[r] < best[r]) {
				continue
			}
			best[r] = cur[r]
			for j, sl := range o.slopes {
				if saved[j] != nil {
					n := sl.n
					copy(saved[j][r*n:(r+1)*n], sl.s[r*n:(r+1)*n])
				}
			}
		}
	}
	for j, sl := range o.slopes {
		if saved[j] != nil {
			copy(sl.s, saved[j])
		}
	}
	return best
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
	if nfree == 0 || !finiteAll(s.net.In) {
		return
	}
	pre := s.net.Pre[k]
	a := s.f.Layers[k].Act
	var rows []int
	var sign []float64
	for i, x := range pre {
		if hasKinks(a) && !straddlesKink(a, x) {
			continue
		}
		rows = append(rows, i, i)
		sign = append(sign, 1, -1)
	}
	if len(rows) == 0 {
		return
	}
	o := newSlopeOpt(s.f, s.net.In, s.rels, s.free, k, rows, sign)
	o.run(set.orDefault())
	b := s.backSubstitute(k, rows, sign, o.slopes)
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
