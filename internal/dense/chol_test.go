package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	lapack "gonum.org/v1/gonum/lapack/gonum"
)

// spdPadded returns a well-conditioned symmetric positive definite n x n
// matrix with leading dimension lda, NaN above the diagonal.
func spdPadded(rnd *rand.Rand, n, lda int) []float64 {
	s := spd(rnd, n)
	a := make([]float64, max(0, (n-1)*lda+n))
	for i := range n {
		for j := range n {
			a[i*lda+j] = s[i*n+j]
			if j > i {
				a[i*lda+j] = nan()
			}
		}
	}
	return a
}

func TestPotrfPotri(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(9, 10))
		for _, n := range []int{0, 1, 2, 7, 31, 33, 64, 100, 201} {
			for _, pad := range []int{0, 3} {
				name := fmt.Sprintf("n%d/pad%d", n, pad)
				lda := max(1, n+pad)
				a := spdPadded(rnd, n, lda)
				want := append([]float64(nil), a...)
				if ok := (lapack.Implementation{}).Dpotrf(blas.Lower, n, want, lda); !ok {
					t.Fatalf("%s: reference Dpotrf failed", name)
				}
				if ok := Potrf(n, a, lda); !ok {
					t.Fatalf("%s: Potrf reports not positive definite", name)
				}
				checkClose(t, name+"/potrf", a, want, 1e-12, 1)
				(lapack.Implementation{}).Dpotri(blas.Lower, n, want, lda)
				if ok := Potri(n, a, lda); !ok {
					t.Fatalf("%s: Potri reports singular", name)
				}
				checkClose(t, name+"/potri", a, want, 1e-12, 1)
			}
		}
	})
}

func TestPotrfNotPositiveDefinite(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(11, 12))
		for _, n := range []int{1, 5, 40, 150} {
			for _, bad := range []int{0, n / 2, n - 1} {
				a := spdPadded(rnd, n, n)
				a[bad*n+bad] = -1e6 // no longer positive definite
				if Potrf(n, a, n) {
					t.Errorf("n%d: Potrf accepted a matrix with A(%d,%d) < 0", n, bad, bad)
				}
			}
		}
	})
}

func TestPotriSingular(t *testing.T) {
	l := []float64{1, 0, 2, 0}
	if Potri(2, l, 2) {
		t.Error("Potri accepted a factor with a zero diagonal element")
	}
}
