package bounds

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/dense"
	"github.com/nnbound/nnbound/internal/outward"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestGemmRoundingBound checks the premise of the error terms of a
// substitution (affineErr): every entry of gemm's product, a sum of n
// products plus, with beta 1, the old entry, is within
//
//	gamma_n' sum |terms| + n' 2^-1074,   gamma_n' = n' u / (1 - n' u),
//
// (n' = n + beta) of the exact sum, computed here in 256-bit arithmetic;
// affineErr charges 2 (n+2) u, above gamma_n. Shapes are below and above
// a block of the inner dimension, operands strided and of widely spread
// magnitudes.
func TestGemmRoundingBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	randGeneral := func(r, c, pad int) blas64.General {
		g := blas64.General{Rows: r, Cols: c, Stride: c + pad, Data: make([]float64, r*(c+pad))}
		for i := range g.Data {
			g.Data[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
		}
		return g
	}
	for _, sh := range [][3]int{{2, 100, 100}, {100, 100, 50}, {65, 129, 3}, {200, 5, 64}, {64, 64, 64}, {30, 300, 40}} {
		m, k, n := sh[0], sh[1], sh[2]
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			a := randGeneral(m, k, 1)
			b := randGeneral(k, n, 3)
			at := func(l, j int) float64 { return b.Data[l*b.Stride+j] }
			if tB == blas.Trans {
				b = randGeneral(n, k, 2)
				at = func(l, j int) float64 { return b.Data[j*b.Stride+l] }
			}
			beta := float64(rng.IntN(2))
			c := randGeneral(m, n, 2)
			old := append([]float64(nil), c.Data...)
			gemm(&packCache{}, tB, a, b, beta, c) // packed B: the same bits as unpacked (dense.TestDgemmPacked)
			terms := k + int(beta)
			gamma := float64(terms) * outward.Unit / (1 - float64(terms)*outward.Unit)
			for i := range m {
				for j := range n {
					exact, abs := new(big.Float).SetPrec(256), 0.0
					if beta == 1 {
						exact.SetFloat64(old[i*c.Stride+j])
						abs = math.Abs(old[i*c.Stride+j])
					}
					for l := range k {
						x, y := a.Data[i*a.Stride+l], at(l, j)
						p := new(big.Float).SetPrec(256).SetFloat64(x)
						exact.Add(exact, p.Mul(p, new(big.Float).SetFloat64(y)))
						abs += math.Abs(x * y)
					}
					got := c.Data[i*c.Stride+j]
					diff := new(big.Float).SetPrec(256).SetFloat64(got)
					e, _ := diff.Sub(diff, exact).Float64()
					if bound := gamma*abs*(1+4*float64(terms)*outward.Unit) + float64(terms)*outward.Tiny; math.Abs(e) > bound {
						t.Fatalf("%dx%dx%d trans %v beta %v: c[%d,%d] = %v is %v from the exact sum, bound %v",
							m, k, n, tB == blas.Trans, beta, i, j, got, e, bound)
					}
				}
			}
		}
	}
}

// TestFloatsPool checks that pooled slices come back with the length asked
// and zeroed when asked.
func TestFloatsPool(t *testing.T) {
	for _, n := range []int{1, 2, 3, 64, 65, 1000} {
		s := getFloats(n, true)
		for i := range s {
			s[i] = 1
		}
		putFloats(s)
		z := getFloats(n, true)
		if len(z) != n {
			t.Fatalf("getFloats(%d) has length %d", n, len(z))
		}
		for i, v := range z {
			if v != 0 {
				t.Fatalf("getFloats(%d, true)[%d] = %v", n, i, v)
			}
		}
	}
}

// TestPackCache checks that a packCache gives a matrix its own packing
// again, and a different view of the same storage, or the transpose, a
// packing of its own.
func TestPackCache(t *testing.T) {
	var c packCache
	g := blas64.General{Rows: 4, Cols: 6, Stride: 6, Data: make([]float64, 24)}
	p := c.get(blas.NoTrans, g)
	if p == nil || c.get(blas.NoTrans, g) != p {
		t.Fatal("the same matrix is packed again")
	}
	for name, q := range map[string]*dense.PackedB{
		"transposed": c.get(blas.Trans, g),
		"lower rows": c.get(blas.NoTrans, view(g, 2, 0, 2, 6)),
		"fewer cols": c.get(blas.NoTrans, view(g, 0, 0, 4, 3)),
	} {
		if q == nil || q == p {
			t.Errorf("%s: packing %p, the matrix's %p", name, q, p)
		}
	}
	var none *packCache
	if none.get(blas.NoTrans, g) != nil {
		t.Error("a nil cache packs")
	}
}
