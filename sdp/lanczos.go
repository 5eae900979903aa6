package sdp

import (
	"math"
	"math/rand/v2"
)

// lanczos estimates the smallest eigenvalue of L^{-1} D L^{-T}, for the
// Cholesky factor L of a PSD block and a symmetric direction D, without
// forming it: each step costs two triangular solves and one product with
// D. The step to the boundary of the cone is -1/lambda_min. Lanczos with
// full reorthogonalisation; its smallest Ritz value approaches lambda_min
// from above, so the step it gives can be slightly long, which the
// Cholesky factorisation of the new iterate catches.
type lanczos struct {
	kmax  int
	v     []float64 // kmax+1 basis vectors of length nmax
	w     []float64
	start []float64
	alpha []float64
	beta  []float64
}

// newLanczos allocates for blocks of order up to nmax and at most kmax
// steps.
func newLanczos(nmax, kmax int) *lanczos {
	lz := &lanczos{
		kmax: kmax, v: make([]float64, (kmax+1)*nmax), w: make([]float64, nmax),
		start: make([]float64, nmax), alpha: make([]float64, kmax), beta: make([]float64, kmax),
	}
	rng := rand.New(rand.NewPCG(0x5eed, 0x1a2c205))
	for i := range lz.start {
		lz.start[i] = rng.Float64() - 0.5
	}
	return lz
}

// minEig returns an estimate of lambda_min(L^{-1} D L^{-T}) using at most
// steps Lanczos steps (fewer if it converges to relative accuracy tol).
// With l nil it estimates lambda_min(D) itself.
func (lz *lanczos) minEig(n int, l, d []float64, steps int, tol float64) float64 {
	k := min(steps, lz.kmax, n)
	v := lz.v
	v0 := v[:n]
	copy(v0, lz.start[:n])
	scal(1/norm2(v0), v0)
	w := lz.w[:n]
	prev := math.Inf(1)
	theta := 0.0
	for j := 0; j < k; j++ {
		vj := v[j*n : j*n+n]
		lz.apply(n, l, d, vj, w)
		a := dot(w, vj)
		lz.alpha[j] = a
		// Full reorthogonalisation, twice for safety.
		for pass := 0; pass < 2; pass++ {
			for i := 0; i <= j; i++ {
				vi := v[i*n : i*n+n]
				axpy(-dot(w, vi), vi, w)
			}
		}
		b := norm2(w)
		lz.beta[j] = b
		theta = tridiagMin(lz.alpha[:j+1], lz.beta[:j])
		scale := math.Abs(theta) + math.Abs(a) + b
		if b <= 1e-12*scale || j+1 == k {
			break
		}
		if j >= 3 && math.Abs(prev-theta) <= tol*math.Max(math.Abs(theta), 1e-300) {
			break
		}
		prev = theta
		vn := v[(j+1)*n : (j+1)*n+n]
		copy(vn, w)
		scal(1/b, vn)
	}
	return theta
}

// apply sets w = L^{-1} D L^{-T} v, or w = D v when l is nil.
func (lz *lanczos) apply(n int, l, d, v, w []float64) {
	if l == nil {
		symv(n, d, n, v, w)
		return
	}
	z := lz.v[lz.kmax*n : lz.kmax*n+n]
	copy(z, v)
	solveLower(true, n, l, n, z)
	symv(n, d, n, z, w)
	solveLower(false, n, l, n, w)
}

// tridiagMin returns the smallest eigenvalue of the symmetric tridiagonal
// matrix with diagonal a and off-diagonal b, by bisection on Sturm counts.
func tridiagMin(a, b []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, ai := range a {
		r := 0.0
		if i > 0 {
			r += math.Abs(b[i-1])
		}
		if i < len(b) {
			r += math.Abs(b[i])
		}
		lo = math.Min(lo, ai-r)
		hi = math.Max(hi, ai+r)
	}
	if len(a) == 1 {
		return a[0]
	}
	for it := 0; it < 200 && hi-lo > 1e-15*math.Max(math.Abs(lo), math.Abs(hi)); it++ {
		mid := 0.5 * (lo + hi)
		if sturmBelow(a, b, mid) >= 1 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo
}

// sturmBelow counts the eigenvalues below x of the tridiagonal (a, b).
func sturmBelow(a, b []float64, x float64) int {
	count := 0
	q := 1.0
	for i, ai := range a {
		off := 0.0
		if i > 0 {
			off = b[i-1] * b[i-1] / q
		}
		q = ai - x - off
		if q == 0 {
			q = -1e-300
		}
		if q < 0 {
			count++
		}
	}
	return count
}

// scal sets x *= alpha.
func scal(alpha float64, x []float64) {
	for i := range x {
		x[i] *= alpha
	}
}
