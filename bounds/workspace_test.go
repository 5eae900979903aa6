package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestGemmSameBits checks that gemm gives gonum's Gemm result to the bit,
// on shapes below and above gonum's parallel threshold, with strided
// operands, beta 0 and 1.
func TestGemmSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	randGeneral := func(r, c, pad int) blas64.General {
		g := blas64.General{Rows: r, Cols: c, Stride: c + pad, Data: make([]float64, r*(c+pad))}
		for i := range g.Data {
			g.Data[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
		}
		return g
	}
	for _, sh := range [][3]int{{2, 100, 100}, {100, 100, 100}, {130, 70, 200}, {65, 129, 3}, {200, 5, 64}, {64, 64, 64}, {129, 257, 65}} {
		m, k, n := sh[0], sh[1], sh[2]
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			a := randGeneral(m, k, 1)
			b := randGeneral(k, n, 3)
			if tB == blas.Trans {
				b = randGeneral(n, k, 2)
			}
			beta := float64(rng.IntN(2))
			want := randGeneral(m, n, 0)
			got := randGeneral(m, n, 2)
			for i := range m {
				copy(got.Data[i*got.Stride:i*got.Stride+n], want.Data[i*want.Stride:i*want.Stride+n])
			}
			blas64.Gemm(blas.NoTrans, tB, 1, a, b, beta, want)
			gemm(tB, a, b, beta, got)
			for i := range m {
				for j := range n {
					if w, g := want.Data[i*want.Stride+j], got.Data[i*got.Stride+j]; math.Float64bits(w) != math.Float64bits(g) {
						t.Fatalf("%dx%dx%d trans %v beta %v: c[%d,%d] = %v, gonum %v", m, k, n, tB == blas.Trans, beta, i, j, g, w)
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
