package bounds

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Optimised slopes (alpha-CROWN).
//
// A back-substitution bound of a target (an upper bound of a linear form
// Lam^top v^top + c of the variables of some level) is a function B(a) of
// the slopes a of the free lines (slopes.go) of every level below:
//
//	for j = top .. 0:
//	    Xi^j += Lam^j_i a^j_i e_i                        (free side chosen: line a p_i)
//	    Xi^j += Lam^j_i Lam(bound_i),  c += Lam^j_i C(bound_i)   (otherwise)
//	    c += Xi^j . b^j,  Lam^{j-1} = Xi^j W^j
//	B = c + sum_i max(Lam^{-1}_i lo_i, Lam^{-1}_i hi_i)
//
// where each level's variables v^j (a layer's outputs, or the joint
// variables of a pair) are bounded by affine functions of its
// pre-variables p^j = W^j v^{j-1} + b^j. slopeOpt evaluates B and its
// (sub)gradient in a by this forward pass and the reverse one, for a batch
// of targets at once (each with its own slopes), and lowers B by projected
// Adam steps. This runs in plain float64: it only chooses slopes. The bound
// returned is recomputed from the best slopes found by the rigorous
// back-substitution (backsub.go), which clamps every slope to its range; it
// is sound whatever the optimiser did.

// chainLevel is one level of a back-substitution chain.
type chainLevel struct {
	rel  stepRelax      // the variables' bounds in the pre-variables
	free *freeLines     // their free lines (nil: none)
	w    blas64.General // pre-variables = w (variables below) + b
	b    []float64
	// lines, if not nil, is rel as single lines (compactLevel).
	lines *lineLevel
	// pack keeps w packed for the products (nil: none; compactLevel).
	pack *packCache
}

// slopeOpt optimises the slopes of a batch of targets (rows).
type slopeOpt struct {
	levels []chainLevel // 0 is the bottom
	in     []Interval   // the box of the variables below level 0
	rows   int
	lam0   []float64    // rows x (variables of the top level): the targets
	c0     []float64    // and their constants
	slopes []*rowSlopes // per level (nil: no free lines)
	// freeVars lists per level the variables with a free line.
	freeVars [][]int
	fcol     [][]int // per level, the pre-variable of each free line
	// Work space: coefficients on each level's variables and
	// pre-variables, on the bottom box, and the constants; the gradients
	// alike.
	lamZ, lamXi [][]float64
	lamX, c     []float64
	gZ          [][]float64
	gXi, gX     []float64
	// rowCoef and rowCst hold, per level of single lines, every row's
	// lines (rowLines), 2n per row.
	rowCoef, rowCst [][]float64
	grad            [][]float64
	adamM           [][]float64
	adamV           [][]float64
}

// newSlopeOpt prepares the optimisation of the targets lam0 v + c0 (lam0
// row-major, one row per target) on the variables v of the top level of
// levels; cache, if not nil, holds the compacted levels (compactLevel) of
// the chain, shared by the optimisations of every level above.
func newSlopeOpt(levels []chainLevel, in []Interval, lam0, c0 []float64, cache *levelCache) *slopeOpt {
	R, L := len(c0), len(levels)
	o := &slopeOpt{levels: levels, in: in, rows: R, lam0: lam0, c0: c0,
		slopes: make([]*rowSlopes, L), lamZ: make([][]float64, L), lamXi: make([][]float64, L), gZ: make([][]float64, L),
		grad: make([][]float64, L), adamM: make([][]float64, L), adamV: make([][]float64, L)}
	maxP := len(in)
	levels = slices.Clone(levels)
	o.levels = levels
	o.fcol = make([][]int, L)
	o.freeVars = make([][]int, L)
	o.rowCoef, o.rowCst = make([][]float64, L), make([][]float64, L)
	for j := range levels {
		levels[j], o.fcol[j] = cache.compact(j, levels[j])
	}
	for j, lv := range levels {
		n, p := len(lv.rel.Lower), lv.rel.cols
		maxP = max(maxP, p)
		// Only Adam's moments start from zero: forward and backward write
		// every other buffer before they read it.
		o.lamZ[j] = getFloats(R*n, false)
		o.lamXi[j] = getFloats(R*p, false)
		o.gZ[j] = getFloats(R*n, false)
		if ll := lv.lines; ll != nil {
			o.rowCoef[j], o.rowCst[j] = getFloats(R*2*n, false), getFloats(R*2*n, false)
			for r := range R {
				copy(o.rowCoef[j][r*2*n:], ll.coef)
				copy(o.rowCst[j][r*2*n:], ll.cst)
			}
		}
		if lv.free != nil && lv.free.count > 0 {
			o.slopes[j] = newRowSlopes(lv.free, lv.rel, R)
			for i, sd := range lv.free.side {
				if sd != 0 {
					o.freeVars[j] = append(o.freeVars[j], i)
				}
			}
			o.grad[j] = getFloats(R*n, false)
			o.adamM[j] = getFloats(R*n, true)
			o.adamV[j] = getFloats(R*n, true)
		}
	}
	o.lamX = getFloats(R*len(in), false)
	o.c = getFloats(R, false)
	o.gXi, o.gX = getFloats(R*maxP, false), getFloats(R*len(in), false)
	return o
}

// release returns the work space to the pool (getFloats); only o.slopes
// may be used after.
func (o *slopeOpt) release() {
	for _, ws := range [][][]float64{o.lamZ, o.lamXi, o.gZ, o.grad, o.adamM, o.adamV, o.rowCoef, o.rowCst} {
		for j, s := range ws {
			putFloats(s)
			ws[j] = nil
		}
	}
	for _, s := range []*[]float64{&o.lamX, &o.c, &o.gXi, &o.gX} {
		putFloats(*s)
		*s = nil
	}
}

// general returns the row-major r x c matrix on data.
func general(r, c int, data []float64) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: c, Data: data[:r*c]}
}

// forward computes the bounds B of every target into out.
func (o *slopeOpt) forward(out []float64) {
	R := o.rows
	top := len(o.levels) - 1
	copy(o.lamZ[top], o.lam0)
	copy(o.c, o.c0)
	for j := top; j >= 0; j-- {
		lv := o.levels[j]
		n, p := len(lv.rel.Lower), lv.rel.cols
		z, xi := o.lamZ[j], o.lamXi[j]
		clear(xi)
		for r := range R {
			zr, xr := z[r*n:(r+1)*n], xi[r*p:(r+1)*p]
			var cr float64
			if lv.lines != nil {
				cr = o.forwardLines(j, r, lv.lines, zr, xr)
			} else {
				cr = o.forwardTerms(j, r, zr, xr)
			}
			for q, x := range xr {
				cr += x * lv.b[q]
			}
			o.c[r] += cr
		}
		below := o.lamX
		if j > 0 {
			below = o.lamZ[j-1]
		}
		if p == 0 { // nothing below reaches the targets
			clear(below)
			continue
		}
		gemm(lv.pack, blas.NoTrans, general(R, p, xi), lv.w, 0, general(R, lv.w.Cols, below))
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

// forwardTerms is the part of forward on level j for row r: it adds the
// row's bounds times the coefficients z (of the level's variables) to xr
// (on the pre-variables) and returns the sum of their offsets times z.
func (o *slopeOpt) forwardTerms(j, r int, z, xr []float64) float64 {
	lv, fc := o.levels[j], o.fcol[j]
	sr := o.slopes[j].row(r)
	cr := 0.0
	for i, v := range z {
		if v == 0 {
			continue
		}
		if a, ok := sr.at(i, v >= 0); ok {
			xr[fc[i]] += v * a
			continue
		}
		bd := &lv.rel.Upper[i]
		if v < 0 {
			bd = &lv.rel.Lower[i]
		}
		cr += v * bd.C
		for _, t := range bd.terms {
			xr[t.col] += v * t.coef
		}
	}
	return cr
}

// backward computes the gradient of every B in the slopes into o.grad,
// after forward. It stops at the highest level with slopes, without its
// gradient in the coefficients: only the levels above would take it, and
// they have no slopes to move.
func (o *slopeOpt) backward() {
	R := o.rows
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
	top := -1
	for j, sl := range o.slopes {
		if sl != nil {
			top = j
		}
	}
	for j, lv := range o.levels[:top+1] {
		n, p := len(lv.rel.Lower), lv.rel.cols
		gxi := o.gXi[:R*p]
		// dB/dXi^j = G W^j^T + b^j.
		if p > 0 {
			gemm(lv.pack, blas.Trans, general(R, m, g), lv.w, 0, general(R, p, gxi))
		}
		z, gr, gz := o.lamZ[j], o.grad[j], o.gZ[j]
		clear(gr) // zero but where a free line is used
		for r := range R {
			qr := gxi[r*p : (r+1)*p]
			for q := range qr {
				qr[q] += lv.b[q]
			}
			var grr, gzr []float64
			if gr != nil {
				grr = gr[r*n : (r+1)*n]
			}
			if j < top {
				gzr = gz[r*n : (r+1)*n]
			}
			if lv.lines != nil {
				o.backwardLines(j, r, lv.lines, z[r*n:(r+1)*n], qr, gzr, grr)
			} else {
				o.backwardTerms(j, r, z[r*n:(r+1)*n], qr, gzr, grr)
			}
		}
		g, m = gz, n
	}
}

// backwardTerms is the part of backward on level j for row r: the
// gradient gz in the coefficients z of the level's variables (none if gz
// is nil), and gr in the row's slopes, from the gradient q in the
// pre-variables.
func (o *slopeOpt) backwardTerms(j, r int, z, q, gz, gr []float64) {
	lv, fc := o.levels[j], o.fcol[j]
	sr := o.slopes[j].row(r)
	for i, v := range z {
		if a, ok := sr.at(i, v >= 0); ok {
			gr[i] = q[fc[i]] * v
			if gz != nil {
				gz[i] = q[fc[i]] * a
			}
			continue
		}
		if gz == nil {
			continue
		}
		bd := &lv.rel.Upper[i]
		if v < 0 {
			bd = &lv.rel.Lower[i]
		}
		s := bd.C
		for _, t := range bd.terms {
			s += q[t.col] * t.coef
		}
		gz[i] = s
	}
}

// run optimises the slopes for iters steps and returns the best bound of
// each target found in plain float64 (the slopes attaining it are left in
// o.slopes). It releases the work space: only o.slopes may be used after.
func (o *slopeOpt) run(set OptimiseSettings) []float64 {
	defer o.release()
	R := o.rows
	best := make([]float64, R)
	cur := getFloats(R, false)
	defer putFloats(cur)
	o.forward(best)
	saved := make([][]float64, len(o.levels))
	for j, sl := range o.slopes {
		if sl != nil {
			saved[j] = getFloats(len(sl.s), false)
			copy(saved[j], sl.s)
		}
	}
	p1, p2 := 1.0, 1.0
	for it := range set.Iterations {
		o.backward()
		p1 *= adamBeta1
		p2 *= adamBeta2
		step := set.Step * math.Pow(0.95, float64(it))
		d1, d2 := 1-p1, 1-p2
		for j, sl := range o.slopes {
			if sl == nil {
				continue
			}
			n := sl.n
			lo, hi := sl.free.lo[:n], sl.free.hi[:n]
			for r := range R {
				gr, mm, vv := o.grad[j][r*n:(r+1)*n], o.adamM[j][r*n:(r+1)*n], o.adamV[j][r*n:(r+1)*n]
				s := sl.s[r*n : (r+1)*n]
				for _, i := range o.freeVars[j] { // the gradient is 0 elsewhere
					gv := gr[i]
					if gv == 0 && mm[i] == 0 {
						continue
					}
					s[i] = adamStep(s[i], gv, &mm[i], &vv[i], step, d1, d2, lo[i], hi[i])
				}
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
			putFloats(saved[j])
		}
	}
	return best
}
