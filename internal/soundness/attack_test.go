package soundness_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

const unitRound = 0x1p-53

// evalTracked returns net(x) and, per output, a bound on the rounding error
// of its float64 evaluation (as nn.Network.Eval does it: recursive
// summation from the bias) and its magnitude (the same evaluation with
// absolute values). The error bound is generous: the network's
// Lipschitz constants times the dot products' rounding, a few ulps per
// elementary function.
//
// A quantised (QDQ) network's float64 reference evaluation is what its
// bounds cover: its error bound is 0.
func evalTracked(net *nn.Network, x []float64) (out, errB, mag []float64) {
	if net.Quantised() {
		out, _ = net.Eval(x)
		errB, mag = make([]float64, len(out)), make([]float64, len(out))
		for i, v := range out {
			mag[i] = math.Abs(v)
		}
		return out, errB, mag
	}
	h := x
	eh := make([]float64, len(x))
	mh := make([]float64, len(x))
	for i, v := range x {
		mh[i] = math.Abs(v)
	}
	for _, l := range net.Layers {
		raw := l.W.RawMatrix()
		nh, ne, nm := make([]float64, raw.Rows), make([]float64, raw.Rows), make([]float64, raw.Rows)
		lip := lipschitz(l.Act)
		for i := range raw.Rows {
			row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
			s, absS, e, m := l.B[i], math.Abs(l.B[i]), 0.0, math.Abs(l.B[i])
			for j, w := range row {
				s += w * h[j]
				absS += math.Abs(w * h[j])
				e += math.Abs(w) * eh[j]
				m += math.Abs(w) * mh[j]
			}
			e += float64(2*(len(row)+2)) * unitRound * absS
			a := l.Act.Apply(s)
			nh[i] = a
			ne[i] = lip*e + 8*unitRound*math.Abs(a) + 0x1p-1070
			nm[i] = lip*m + math.Abs(a)
		}
		h, eh, mh = nh, ne, nm
	}
	return h, eh, mh
}

// lipschitz returns the largest slope of a.
func lipschitz(a nn.Activation) float64 {
	switch a.Kind {
	case nn.LeakyReLU:
		return max(1, math.Abs(a.Alpha))
	case nn.ELU:
		return max(1, math.Abs(a.Alpha))
	case nn.Sigmoid:
		return 0.25
	}
	return 1
}

// problem evaluates the measured error of an instance at points z of the
// search space: z = x1 (n values), or z = (x1, x2) for independent
// inputs.
type problem struct {
	f1, f2 *nn.Network
	inputs spec.Inputs
	norm   spec.Norm
	c      []float64
	n      int
	lo, hi []float64 // of z
	evals  int
	// maxErr is the largest float64 error seen (at maxZ, with the noise
	// maxTol), to check a claimed exact maximum.
	maxErr, maxTol float64
	maxZ           []float64
}

func newProblem(in *instance) *problem {
	p := &problem{f1: in.f1, f2: in.f2, norm: in.opts.Norm, c: in.opts.C, n: in.box.Dim(),
		inputs: in.opts.Inputs(in.box), maxErr: math.Inf(-1)}
	if in.opts.C != nil {
		p.norm = spec.Norm2 // irrelevant
	}
	p.lo, p.hi = slices.Clone(in.box.Lo), slices.Clone(in.box.Hi)
	if in.opts.Pairing == spec.Independent {
		p.lo, p.hi = append(p.lo, in.box.Lo...), append(p.hi, in.box.Hi...)
	}
	return p
}

// split returns x1 and x2 for z.
func (p *problem) split(z []float64) (x1, x2 []float64) {
	if p.inputs.Pairing == spec.Independent {
		return z[:p.n], z[p.n:]
	}
	return z, p.inputs.X2(z)
}

// errorAt returns the measured error at z and a bound on its evaluation
// noise: 1e-12 of the magnitudes involved plus a multiple of the rounding
// error bound.
func (p *problem) errorAt(z []float64) (e, tol float64) {
	e, tol = p.measure(z)
	if e > p.maxErr {
		p.maxErr, p.maxTol, p.maxZ = e, tol, slices.Clone(z)
	}
	return e, tol
}

// measure returns the float64 error at z and its noise.
func (p *problem) measure(z []float64) (e, tol float64) {
	p.evals++
	x1, x2 := p.split(z)
	o1, e1, m1 := evalTracked(p.f1, x1)
	o2, e2, m2 := evalTracked(p.f2, x2)
	switch {
	case p.c != nil:
		s, es, ms := 0.0, 0.0, 0.0
		for j, c := range p.c {
			d := o1[j] - o2[j]
			s += c * d
			es += math.Abs(c) * (e1[j] + e2[j])
			ms += math.Abs(c) * (m1[j] + m2[j])
		}
		return math.Abs(s), 16*es + 1e-12*ms
	case p.norm == spec.NormInf:
		for j := range o1 {
			e = max(e, math.Abs(o1[j]-o2[j]))
			tol = max(tol, 16*(e1[j]+e2[j])+1e-12*(m1[j]+m2[j]))
		}
		return e, tol
	}
	for j := range o1 {
		d := o1[j] - o2[j]
		e += d * d
		tol += 16*(e1[j]+e2[j]) + 1e-12*(m1[j]+m2[j])
	}
	return math.Sqrt(e), tol
}

// target is a claim to attack: the error is at most bound on the part of
// the search space within lo..hi, and (when gammas is set) at most the
// gamma form pointwise.
type target struct {
	name   string
	lo, hi []float64
	bound  float64
	gammas *certify.Gammas
	// x2lo, x2hi, when set, restrict the claim to x2 in that box (a piece
	// of a quantised input set: its x1 box shares its ends with the
	// neighbouring pieces, whose x2 differs).
	x2lo, x2hi []float64
}

// excess returns how far the float64 error at z exceeds the claim (the
// search objective; > 0 is a candidate, confirmed or refuted by
// exactCheck), the error and the tolerance of its evaluation noise.
func (p *problem) excess(t *target, z []float64) (v, e, tol float64) {
	if t.x2lo != nil {
		if _, x2 := p.split(z); !inside(x2, t.x2lo, t.x2hi) {
			return math.Inf(-1), 0, 0
		}
	}
	e, tol = p.errorAt(z)
	if math.IsNaN(e) {
		return math.Inf(-1), e, tol
	}
	v = e - t.bound
	if t.gammas != nil {
		x1, x2 := p.split(z)
		v = max(v, e-math.Sqrt(gammaRHS(*t.gammas, x1, x2)))
	}
	return v, e, tol
}

// gammaRHS returns gamma + gamma_x1 ||x1||^2 + gamma_x2 ||x2||^2 + gamma_x ||x1 - x2||^2.
func gammaRHS(g certify.Gammas, x1, x2 []float64) float64 {
	s := g.Gamma
	for i := range x1 {
		d := x1[i] - x2[i]
		s += g.GammaX1*x1[i]*x1[i] + g.GammaX2*x2[i]*x2[i] + g.GammaX*d*d
	}
	return s
}

// finding is a violated claim.
type finding struct {
	target       string
	z            []float64
	err, bound   float64
	tol          float64 // evaluation noise of the float64 error
	floatExcess  float64 // float64 error - claim
	excess       float64 // high-precision error - claim (> 0: a violation)
	gammaClaimed bool
}

// attack searches for a violation of t and returns the worst point found
// (excess > 0 is a violation).
func (p *problem) attack(ctx context.Context, t *target, rng *rand.Rand, budget int, seeds [][]float64) (best finding) {
	dim := len(t.lo)
	best = finding{target: t.name, excess: math.Inf(-1), bound: t.bound, gammaClaimed: t.gammas != nil}
	var pool []scoredPt
	try := func(z []float64) float64 {
		for i := range z {
			z[i] = min(t.hi[i], max(t.lo[i], z[i]))
		}
		v, _, _ := p.excess(t, z)
		pool = insertPool(pool, scoredPt{slices.Clone(z), v}, 8)
		return v
	}
	defer func() {
		// Confirm the best candidates in high precision.
		for _, s := range pool {
			if math.IsInf(s.v, -1) {
				continue
			}
			fv, e, tol := p.excess(t, s.z)
			ex, _ := p.exactCheck(t, s.z)
			if ex > best.excess || best.z == nil {
				best = finding{target: t.name, z: s.z, err: e, bound: t.bound, tol: tol, floatExcess: fv,
					excess: ex, gammaClaimed: t.gammas != nil}
			}
		}
	}()
	for _, s := range seeds {
		if len(s) == dim && inside(s, t.lo, t.hi) {
			try(slices.Clone(s))
		}
	}
	// Corners (all of them up to 2^12, random ones beyond).
	z := make([]float64, dim)
	if dim <= 12 {
		for c := range 1 << dim {
			for i := range z {
				z[i] = t.lo[i]
				if c>>i&1 == 1 {
					z[i] = t.hi[i]
				}
			}
			try(z)
		}
	} else {
		for range 4096 {
			for i := range z {
				z[i] = t.lo[i]
				if rng.IntN(2) == 1 {
					z[i] = t.hi[i]
				}
			}
			try(z)
		}
	}
	// Grids in low dimension.
	switch dim {
	case 1:
		g := budget * 4
		for k := 0; k <= g; k++ {
			z[0] = t.lo[0] + (t.hi[0]-t.lo[0])*float64(k)/float64(g)
			try(z)
		}
	case 2:
		g := int(math.Sqrt(float64(budget)))
		for a := 0; a <= g; a++ {
			for b := 0; b <= g; b++ {
				z[0] = t.lo[0] + (t.hi[0]-t.lo[0])*float64(a)/float64(g)
				z[1] = t.lo[1] + (t.hi[1]-t.lo[1])*float64(b)/float64(g)
				try(z)
			}
		}
	}
	// Random points, with a bias toward the faces.
	for range budget {
		for i := range z {
			switch rng.IntN(6) {
			case 0:
				z[i] = t.lo[i]
			case 1:
				z[i] = t.hi[i]
			default:
				z[i] = t.lo[i] + rng.Float64()*(t.hi[i]-t.lo[i])
			}
		}
		try(z)
		if ctx.Err() != nil {
			return
		}
	}
	// Quantiser jumps near the best points.
	if p.inputs.Pairing == spec.QuantisedInput {
		step := p.inputs.Quant.Step()
		for _, s := range slices.Clone(pool) {
			for i := range dim {
				for _, k := range []float64{-2, -1, -0.5, 0, 0.5, 1, 2} {
					j := math.Round(s.z[i]/step*2)/2 + k
					for _, dir := range []float64{math.Inf(-1), math.Inf(1)} {
						zz := slices.Clone(s.z)
						zz[i] = math.Nextafter(j*step, dir)
						try(zz)
					}
				}
			}
		}
	}
	// Local ascent from the best points: projected finite-difference
	// gradient steps, then a pattern search.
	for _, s := range slices.Clone(pool) {
		p.ascend(t, s.z, try)
		if ctx.Err() != nil {
			break
		}
	}
	return
}

// ascend climbs the excess from z0.
func (p *problem) ascend(t *target, z0 []float64, try func([]float64) float64) {
	dim := len(z0)
	z := slices.Clone(z0)
	cur := try(slices.Clone(z))
	width := make([]float64, dim)
	for i := range width {
		width[i] = t.hi[i] - t.lo[i]
	}
	step := 0.25
	g := make([]float64, dim)
	for it := 0; it < 60 && step > 1e-9; it++ {
		// Finite-difference gradient.
		for i := range z {
			if width[i] == 0 {
				g[i] = 0
				continue
			}
			h := 1e-6 * width[i]
			zz := slices.Clone(z)
			zz[i] = min(t.hi[i], z[i]+h)
			zm := slices.Clone(z)
			zm[i] = max(t.lo[i], z[i]-h)
			a, _, _ := p.excess(t, zz)
			b, _, _ := p.excess(t, zm)
			g[i] = (a - b) / math.Max(zz[i]-zm[i], 1e-300)
		}
		// Sign-gradient step scaled by the widths (robust to scale).
		zz := slices.Clone(z)
		for i := range zz {
			if g[i] > 0 {
				zz[i] += step * width[i]
			} else if g[i] < 0 {
				zz[i] -= step * width[i]
			}
		}
		if v := try(zz); v > cur {
			cur = v
			copy(z, zz)
			for i := range z {
				z[i] = min(t.hi[i], max(t.lo[i], z[i]))
			}
			continue
		}
		// Pattern search along the axes.
		improved := false
		for i := range z {
			for _, d := range [2]float64{-1, 1} {
				zz := slices.Clone(z)
				zz[i] += d * step * width[i]
				if v := try(zz); v > cur {
					cur, improved = v, true
					copy(z, zz)
					for i := range z {
						z[i] = min(t.hi[i], max(t.lo[i], z[i]))
					}
				}
			}
		}
		if !improved {
			step /= 2
		}
	}
}

type scoredPt struct {
	z []float64
	v float64
}

func insertPool(pool []scoredPt, s scoredPt, k int) []scoredPt {
	i, _ := slices.BinarySearchFunc(pool, s.v, func(a scoredPt, v float64) int {
		switch {
		case a.v > v:
			return -1
		case a.v < v:
			return 1
		}
		return 0
	})
	if i >= k {
		return pool
	}
	pool = slices.Insert(pool, i, s)
	if len(pool) > k {
		pool = pool[:k]
	}
	return pool
}

func inside(z, lo, hi []float64) bool {
	for i := range z {
		if !(z[i] >= lo[i] && z[i] <= hi[i]) {
			return false
		}
	}
	return true
}
