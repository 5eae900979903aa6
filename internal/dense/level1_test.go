package dense

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestDdotDaxpy(t *testing.T) {
	withKernels(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(23, 24))
		for _, n := range []int{0, 1, 7, 31, 32, 33, 40, 64, 100, 1001} {
			for _, inc := range []int{1, 2, -1} {
				for _, alpha := range scalars {
					name := fmt.Sprintf("n%d/inc%d/alpha%v", n, inc, alpha)
					x := randSlice(rnd, max(1, n*abs(inc)))
					y := randSlice(rnd, max(1, n*abs(inc)))
					got := Impl{}.Ddot(n, x, inc, y, inc)
					want := gonum.Implementation{}.Ddot(n, x, inc, y, inc)
					checkClose(t, name+"/dot", []float64{got}, []float64{want}, 1e-14*float64(n+1), 1)
					if n > 0 {
						x[0] = nan() // alpha == 0 must not touch y
					}
					wantY := append([]float64(nil), y...)
					gonum.Implementation{}.Daxpy(n, alpha, x, inc, wantY, inc)
					Impl{}.Daxpy(n, alpha, x, inc, y, inc)
					checkClose(t, name+"/axpy", y, wantY, 1e-15, 1)
				}
			}
		}
	})
}

func TestDtrsv(t *testing.T) {
	rnd := rand.New(rand.NewPCG(25, 26))
	for _, n := range []int{1, 5, 31, 32, 33, 100, 257, 600} {
		for _, ul := range uplos {
			for _, tA := range transposes {
				for _, d := range diags {
					for _, inc := range []int{1, 2, -1} {
						name := fmt.Sprintf("%c%c%c/n%d/inc%d", ul, tA, d, n, inc)
						lda := n + 3
						a := triangular(rnd, n, lda, ul, d)
						x := randSlice(rnd, n*abs(inc))
						want := append([]float64(nil), x...)
						gonum.Implementation{}.Dtrsv(ul, tA, d, n, a, lda, want, inc)
						Impl{}.Dtrsv(ul, tA, d, n, a, lda, x, inc)
						checkClose(t, name, x, want, 1e-12, 1)
					}
				}
			}
		}
	}
}

// TestDtrsvBitIdenticalGonum checks that without AVX-512 the blocked
// solves of a lower triangle give gonum's bits, whatever GOMAXPROCS, with
// the matrix-vector products between blocks shared from the smallest
// size.
func TestDtrsvBitIdenticalGonum(t *testing.T) {
	savedAsm, savedWork, savedProcs := useAsm, parWorkLevel2, runtime.GOMAXPROCS(0)
	defer func() { useAsm, parWorkLevel2 = savedAsm, savedWork; runtime.GOMAXPROCS(savedProcs) }()
	useAsm, parWorkLevel2 = false, 1
	rnd := rand.New(rand.NewPCG(27, 28))
	for _, n := range []int{trsvBlock, 600} {
		lda := n + 5
		for _, tA := range transposes {
			for _, d := range diags {
				a := triangular(rnd, n, lda, blas.Lower, d)
				b := randSlice(rnd, n)
				want := append([]float64(nil), b...)
				gonum.Implementation{}.Dtrsv(blas.Lower, tA, d, n, a, lda, want, 1)
				for procs := 1; procs <= 4; procs++ {
					runtime.GOMAXPROCS(procs)
					x := append([]float64(nil), b...)
					Impl{}.Dtrsv(blas.Lower, tA, d, n, a, lda, x, 1)
					if i := firstBitDiff(x, want); i >= 0 {
						t.Fatalf("%c%c/n%d, GOMAXPROCS=%d: element %d = %v, want gonum's %v", tA, d, n, procs, i, x[i], want[i])
					}
				}
			}
		}
	}
}
