package sdptest

import (
	"math/rand/v2"

	"github.com/nnbound/nnbound/sdp"
)

// RandomLowRank returns a random problem shaped like nnbound's own
// certificate SDPs: one PSD block of order n and m constraints, each
// matrix the sum of one or two rank-one factors d u u^T with u having nnz
// nonzeros (nnz <= n), plus the entry 1 at (i, i) of a diagonal block of
// order m (a sign constraint on the multiplier x_i).
//
// The problem is strictly feasible on both sides, so it has an optimum
// with no duality gap (not known in closed form; check solutions with
// Verify): with Y0 = I, c_i = F_i • Y0; with x0 drawn at random, F_0 =
// sum_i F_i x0_i - I. The same seed gives the same problem.
func RandomLowRank(seed uint64, n, m, nnz int) *sdp.Problem {
	rng := rand.New(rand.NewPCG(seed, 0x5d9))
	nnz = min(max(nnz, 1), n)
	return randomFactored(rng, n, m, func() (u, coef sdp.SparseVec) {
		idx := rng.Perm(n)[:nnz]
		u = sdp.SparseVec{Index: idx, Value: make([]float64, nnz)}
		for k := range u.Value {
			u.Value[k] = rng.NormFloat64()
		}
		return u, coef
	})
}

// randomFactored returns the problem of RandomLowRank with the factors'
// vectors (and their basis coefficients, if any) drawn by draw.
func randomFactored(rng *rand.Rand, n, m int, draw func() (u, coef sdp.SparseVec)) *sdp.Problem {
	p := &sdp.Problem{
		Blocks:  []sdp.Block{{Size: n}, {Size: m, Diagonal: true}},
		C:       make([]float64, m),
		F:       make([]sdp.Matrix, m+1),
		Factors: make([][]sdp.Factor, m+1),
	}
	f0 := make([]float64, n*n) // F_0 in the PSD block, dense while built
	for i := 0; i < m; i++ {
		x0 := rng.NormFloat64()
		c := 1.0 // the diagonal-block entry, times Y0 = 1
		for r := 0; r < 1+rng.IntN(2); r++ {
			u, coef := draw()
			norm2 := 0.0
			for _, v := range u.Value {
				norm2 += v * v
			}
			d := 0.5 + rng.Float64()
			if rng.IntN(2) == 0 {
				d = -d
			}
			p.Factors[i+1] = append(p.Factors[i+1], sdp.Factor{D: d, U: u, Coef: coef})
			c += d * norm2
			for a, ia := range u.Index {
				for b, ib := range u.Index {
					f0[ia*n+ib] += x0 * d * u.Value[a] * u.Value[b]
				}
			}
		}
		p.C[i] = c
		p.F[i+1] = sdp.Matrix{{Block: 1, I: i, J: i, V: 1}}
		p.F[0] = append(p.F[0], sdp.Entry{Block: 1, I: i, J: i, V: x0 - 1})
	}
	for a := 0; a < n; a++ {
		f0[a*n+a]--
		for b := a; b < n; b++ {
			if v := f0[a*n+b]; v != 0 {
				p.F[0] = append(p.F[0], sdp.Entry{Block: 0, I: a, J: b, V: v})
			}
		}
	}
	return p
}

// RandomBasis returns a problem like RandomLowRank whose factors come
// from a dictionary (sdp.Basis) of e dense vectors: each factor is a
// random combination of one or two unit vectors and one basis vector,
// given both as U and as Coef, the way a network's quadratic constraints
// mix a neuron's output with its pre-activation. Solved with or without
// its Bases it is the same problem.
func RandomBasis(seed uint64, n, m, e int) *sdp.Problem {
	rng := rand.New(rand.NewPCG(seed, 0xba5))
	vecs := make([]sdp.SparseVec, e)
	for j := range vecs {
		for _, ix := range rng.Perm(n)[:max(1, n/2)] {
			vecs[j].Index = append(vecs[j].Index, ix)
			vecs[j].Value = append(vecs[j].Value, rng.NormFloat64()/4)
		}
	}
	p := randomFactored(rng, n, m, func() (u, coef sdp.SparseVec) {
		w := make([]float64, n)
		units := rng.Perm(n)[:1+rng.IntN(2)]
		for _, ix := range units {
			v := rng.NormFloat64()
			coef.Index, coef.Value = append(coef.Index, ix), append(coef.Value, v)
			w[ix] += v
		}
		j, b := rng.IntN(e), rng.NormFloat64()
		coef.Index, coef.Value = append(coef.Index, n+j), append(coef.Value, b)
		for k, ix := range vecs[j].Index {
			w[ix] += b * vecs[j].Value[k]
		}
		for ix, v := range w {
			if v != 0 {
				u.Index, u.Value = append(u.Index, ix), append(u.Value, v)
			}
		}
		return u, coef
	})
	p.Bases = []sdp.Basis{{Block: 0, Vecs: vecs}}
	return p
}
