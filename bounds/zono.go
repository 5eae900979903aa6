package bounds

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
)

// Affine forms with shared noise symbols (zonotopes), for ForwardDiff.
//
// Every quantity q (a neuron of f or g, or the difference of two) is held
// as
//
//	q = c + sum_s a_s sigma_s + rho,   sigma_s in [-1, 1],  |rho| <= rad,
//
// where the first n0 symbols are the inputs (x_j = mid_j + half_j
// sigma_j) and each further symbol was introduced by the relaxation of one
// ReLU (or ReLU pair): the symbols are shared by every quantity built
// from them, so affine maps are exact in them and the dependence between
// the two networks and their difference is kept. rad collects what is not
// kept: the rounding errors of float64, bounded by Higham's bound
// (outward.DotErr) with every symbol at most 1 in magnitude.

// zset holds the forms of the neurons of one layer: coefficients (stride
// cap; neuron i's first n[i] symbols, the others 0), centres, radii, the
// range [lo, hi] of each on the box and its magnitude.
type zset struct {
	a                   []float64
	n                   []int
	c, rad, lo, hi, mag []float64
}

// newZset returns room for width forms over cap symbols.
func newZset(width, cap int) zset {
	return zset{a: make([]float64, width*cap), n: make([]int, width), c: make([]float64, width), rad: make([]float64, width),
		lo: make([]float64, width), hi: make([]float64, width), mag: make([]float64, width)}
}

// zform is one form being built: coefficients over the symbols in use, a
// centre, a radius and the magnitude sum_t |w_t| (|c_t| + |a_t|_1) of
// what it was built from (for its rounding error), with the number of
// terms of its longest sum.
type zform struct {
	a         []float64
	c, rad    float64
	abs       float64
	terms     int
	lo, hi, r float64 // its range and half-width, once finished
	mag       float64 // |c| + |a|_1 + rad, once finished
}

// row returns the stored coefficients of neuron i (the others are 0).
func (z *zset) row(i, cap int) []float64 { return z.a[i*cap : i*cap+z.n[i]] }

// reset clears f for n symbols.
func (f *zform) reset(n int) {
	f.a = f.a[:n]
	for s := range f.a {
		f.a[s] = 0
	}
	f.c, f.rad, f.abs, f.terms = 0, 0, 0, 0
}

// addScaled adds w times neuron t of z (n symbols in use) to f.
func (f *zform) addScaled(w float64, z *zset, t, cap int) {
	if w == 0 {
		return
	}
	row := z.row(t, cap)
	for s, v := range row {
		f.a[s] += w * v
	}
	f.c += w * z.c[t]
	aw := math.Abs(w)
	f.rad += aw * z.rad[t]
	f.abs += aw * z.mag[t]
	f.terms++
}

// finish adds f's rounding error to its radius and sets its range.
func (f *zform) finish() {
	m := f.terms + 1
	f.rad = outward.UpBy(f.rad, outward.DotErr(f.abs+f.rad, m)+float64(m+2)*outward.Tiny*float64(len(f.a)+1))
	l1 := 0.0
	for _, v := range f.a {
		l1 += math.Abs(v)
	}
	r := l1 + f.rad
	f.r = outward.UpBy(r, outward.DotErr(r, len(f.a)))
	f.lo, f.hi = outward.SubDown(f.c, f.r), outward.AddUp(f.c, f.r)
	f.mag = outward.AddUp(math.Abs(f.c), f.r)
}

// store writes f as neuron i of z.
func (f *zform) store(z *zset, i, cap int) {
	copy(z.a[i*cap:], f.a)
	z.n[i] = len(f.a)
	z.c[i], z.rad[i], z.lo[i], z.hi[i], z.mag[i] = f.c, f.rad, f.lo, f.hi, f.mag
}

// load sets f to neuron i of z over n symbols.
func (f *zform) load(z *zset, i, cap, n int) {
	f.a = f.a[:n]
	k := copy(f.a, z.row(i, cap))
	for s := k; s < n; s++ {
		f.a[s] = 0
	}
	f.c, f.rad, f.lo, f.hi, f.mag = z.c[i], z.rad[i], z.lo[i], z.hi[i], z.mag[i]
	f.r = max(outward.SubUp(f.hi, f.c), outward.SubUp(f.c, f.lo))
	f.abs, f.terms = 0, 0
}

// zero sets f to the zero form over n symbols.
func (f *zform) zero(n int) {
	f.reset(n)
	f.lo, f.hi, f.r, f.mag = 0, 0, 0, 0
}

// parallel sets f to mu g + m + h sigma_new, where sigma_new is the
// symbol of index len(g.a) (f has one more symbol than g), for an
// enclosure [a, b] of q - mu g_value; it is the form of q.
func (f *zform) parallel(g *zform, mu, a, b float64) {
	n := len(g.a)
	f.a = f.a[:n+1]
	for s, v := range g.a {
		f.a[s] = mu * v
	}
	m := a/2 + b/2
	h := max(outward.SubUp(b, m), outward.SubUp(m, a))
	f.a[n] = h
	f.c = mu * g.c
	f.abs = mu*g.mag + math.Abs(m)
	f.c += m
	f.rad = mu * g.rad
	f.terms = 2
	f.finish()
}

// better reports whether f's range is narrower than g's.
func (f *zform) better(g *zform) bool { return f.r < g.r }

// reluEnclosure returns, for z in [l, u] (l < 0 < u), the chord slope
// lambda >= u / (u - l) in [0, 1] and bounds [0, b] of relu(z) - lambda z.
func reluEnclosure(l, u float64) (lambda, b float64) {
	lambda = min(1, outward.Up(u/outward.SubDown(u, l)))
	return lambda, outward.MulUp(lambda, -l)
}

// pairEnclosure returns an enclosure [a, b] of q - mu d over d in [dl, du]
// for lo(d) <= q <= hi(d), lo and hi piecewise linear with one kink at 0
// (so their extremes minus mu d are at dl, du and 0).
func pairEnclosure(mu, dl, du float64, lo, hi func(float64) float64) (a, b float64) {
	a, b = math.Inf(1), math.Inf(-1)
	for _, d := range [3]float64{dl, du, 0} {
		if d == 0 && !(dl < 0 && du > 0) {
			continue
		}
		a = min(a, outward.SubDown(lo(d), outward.MulUp(mu, d)))
		b = max(b, outward.SubUp(hi(d), outward.MulDown(mu, d)))
	}
	return a, b
}
