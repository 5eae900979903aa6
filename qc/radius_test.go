package qc

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactForm recomputes sum_j w[j] fs[j] + bias e_one in rational arithmetic
// from the exact coefficients (the fs here are exact unit forms).
func ratDot(w []float64, fs []Form, bias float64, one int) map[int]*big.Rat {
	out := map[int]*big.Rat{one: new(big.Rat).SetFloat64(bias)}
	for j, f := range fs {
		for k, i := range f.Idx {
			if out[i] == nil {
				out[i] = new(big.Rat)
			}
			p := new(big.Rat).SetFloat64(w[j])
			p.Mul(p, new(big.Rat).SetFloat64(f.Val[k]))
			out[i].Add(out[i], p)
		}
	}
	return out
}

// within reports whether |exact - v| <= r.
func within(exact *big.Rat, v, r float64) bool {
	d := new(big.Rat).Sub(exact, new(big.Rat).SetFloat64(v))
	d.Abs(d)
	return d.Cmp(new(big.Rat).SetFloat64(r)) <= 0
}

// TestRadiiBoundRounding checks the radii of two-level forms (a layer of
// dot products over forms that are themselves dot products) and of matrix
// assembly against rational arithmetic.
func TestRadiiBoundRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, one = 6, 6
	units := make([]Form, n)
	for i := range units {
		units[i] = Unit(i)
	}
	for trial := range 200 {
		// Level 1: forms g_j = W1[j] . units + b1[j], exact values kept.
		g := make([]Form, 4)
		exactG := make([]map[int]*big.Rat, 4)
		for j := range g {
			w := make([]float64, n)
			for i := range w {
				w[i] = rng.NormFloat64() * float64(1+trial%7)
			}
			b := rng.NormFloat64()
			g[j] = Dot(w, units, b, one)
			exactG[j] = ratDot(w, units, b, one)
		}
		// Level 2: h = w2 . g + b2.
		w2 := []float64{rng.NormFloat64(), rng.NormFloat64() / 3, 1e-3 * rng.NormFloat64(), 7 * rng.NormFloat64()}
		b2 := rng.NormFloat64()
		h := Dot(w2, g, b2, one)
		exactH := map[int]*big.Rat{one: new(big.Rat).SetFloat64(b2)}
		for j, eg := range exactG {
			for i, v := range eg {
				if exactH[i] == nil {
					exactH[i] = new(big.Rat)
				}
				exactH[i].Add(exactH[i], new(big.Rat).Mul(new(big.Rat).SetFloat64(w2[j]), v))
			}
		}
		for i, ex := range exactH {
			v, r := h.Coef(i)
			if !within(ex, v, r) {
				t.Fatalf("trial %d coefficient %d: %v +- %v misses the exact %v", trial, i, v, r, ex.FloatString(20))
			}
		}
		// Matrix: c (h g0^T + g0 h^T)/2 against exact.
		c := rng.NormFloat64()
		m := NewMatrix(n + 1)
		m.AddTerm(c, Term{A: h, B: g[0]})
		for i := range n + 1 {
			for j := range n + 1 {
				ex := new(big.Rat)
				hi, gi, hj, gj := ratAt(exactH, i), ratAt(exactG[0], i), ratAt(exactH, j), ratAt(exactG[0], j)
				ex.Add(new(big.Rat).Mul(hi, gj), new(big.Rat).Mul(gi, hj))
				ex.Mul(ex, new(big.Rat).SetFloat64(c/2))
				if !within(ex, m.V[i*m.N+j], m.R[i*m.N+j]) {
					t.Fatalf("trial %d entry (%d,%d): %v +- %v misses %v", trial, i, j, m.V[i*m.N+j], m.R[i*m.N+j], ex.FloatString(20))
				}
			}
		}
	}
}

func ratAt(m map[int]*big.Rat, i int) *big.Rat {
	if v := m[i]; v != nil {
		return v
	}
	return new(big.Rat)
}

// TestCombExactProducts checks Comb with coefficients whose products are
// exact (+-1, powers of two): the radius must still bound the rounding of
// the sum, and be zero for an exact cancellation.
func TestCombExactProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		f, g := Form{Idx: []int{0, 1, 2}}, Form{Idx: []int{0, 1, 2}}
		for range 3 {
			f.Val = append(f.Val, rng.NormFloat64())
			g.Val = append(g.Val, rng.NormFloat64()*float64(int(1)<<rng.IntN(20)))
		}
		a, b := 1.0, []float64{-1, 0.5, -0.25, 2}[trial%4]
		c := Comb(a, f, b, g)
		for k, i := range c.Idx {
			fv, _ := f.Coef(i)
			gv, _ := g.Coef(i)
			exact := new(big.Rat).Mul(new(big.Rat).SetFloat64(a), new(big.Rat).SetFloat64(fv))
			exact.Add(exact, new(big.Rat).Mul(new(big.Rat).SetFloat64(b), new(big.Rat).SetFloat64(gv)))
			if !within(exact, c.Val[k], c.rad(k)) {
				t.Fatalf("trial %d: coefficient %d = %v with radius %v misses the exact value %v", trial, i, c.Val[k], c.rad(k), exact.FloatString(20))
			}
		}
	}
	if d := Sub(Unit(3), Unit(3)); !d.IsZero() || len(d.Idx) != 0 {
		t.Errorf("x - x = %+v, want the zero form", d)
	}
}
