package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randSlice returns n values uniform in [-1, 1).
func randSlice(rnd *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 2*rnd.Float64() - 1
	}
	return s
}

func nan() float64 { return math.NaN() }

// sameWithin reports the first index where got and want differ by more
// than tol relative to scale (NaNs must match NaNs), or -1.
func sameWithin(got, want []float64, tol, scale float64) int {
	for i := range want {
		g, w := got[i], want[i]
		if math.IsNaN(w) != math.IsNaN(g) {
			return i
		}
		if math.IsNaN(w) {
			continue
		}
		if math.Abs(g-w) > tol*(scale+math.Abs(w)) {
			return i
		}
	}
	return -1
}

// withKernels runs f once with each micro-kernel available here and with
// small blocking constants, so that every edge of the blocked loops is
// crossed by small matrices.
func withKernels(t *testing.T, f func(t *testing.T)) {
	savedAsm, savedAVX2 := useAsm, useAVX2
	defer func() { useAsm, useAVX2 = savedAsm, savedAVX2 }()
	t.Run("default", f)
	for _, k := range []struct {
		name      string
		asm, avx2 bool
		ok        bool // the CPU can run it
	}{{"go", false, false, true}, {"avx2", false, true, canAVX2}, {"avx512", true, false, savedAsm}} {
		if !k.ok {
			continue
		}
		useAsm, useAVX2 = k.asm, k.avx2
		restore := setBlocking(16, 16, 48)
		t.Run(k.name+"/smallblocks", f)
		restore()
	}
}

func checkClose(t *testing.T, what string, got, want []float64, tol, scale float64) {
	t.Helper()
	if i := sameWithin(got, want, tol, scale); i >= 0 {
		t.Fatalf("%s: element %d = %v, want %v", what, i, got[i], want[i])
	}
}

// setBlocking sets the blocking sizes (multiples of mr and nr), turns off
// the hand-over of small problems to gonum, and returns a function
// restoring all of them.
func setBlocking(k, m, n int) (restore func()) {
	k0, m0, n0, s0 := kc, mc, nc, smallGemm
	kc, mc, nc, smallGemm = k, m, n, 0
	return func() { kc, mc, nc, smallGemm = k0, m0, n0, s0 }
}
