package dense

import (
	"gonum.org/v1/gonum/blas"
	lapack "gonum.org/v1/gonum/lapack/gonum"
)

// Orders at or below which the Cholesky routines stop recursing: Potrf
// calls gonum's unblocked Dpotf2 (whose row products run in gonum's
// assembly, faster than ours on small blocks), Potri its own unblocked
// loops.
const (
	potrfLeaf = 64
	potriLeaf = 32
)

// glapack is gonum's LAPACK, for the leaves of Potrf.
var glapack lapack.Implementation

// Argument checks of Potrf and Potri, with gonum's lapack messages.
const (
	errLapackN     = "lapack: n < 0"
	errLapackLdA   = "lapack: bad leading dimension of A"
	errLapackShort = "lapack: insufficient length of a"
)

func checkChol(n int, a []float64, lda int) {
	switch {
	case n < 0:
		panic(errLapackN)
	case lda < max(1, n):
		panic(errLapackLdA)
	case n > 0 && len(a) < (n-1)*lda+n:
		panic(errLapackShort)
	}
}

// Potrf computes the Cholesky factorisation A = L L^T of the symmetric
// positive definite n x n matrix whose lower triangle is stored in a, in
// place (the strict upper triangle is not referenced). It returns false if
// A is not numerically positive definite.
//
// The factorisation is recursive:
//
//	[A11    ]   [L11    ] [L11ᵀ L21ᵀ]
//	[A21 A22] = [L21 L22] [     L22ᵀ]
//
// factors A11, solves L21 = A21 L11^{-T}, updates A22 -= L21 L21ᵀ by SYRK
// and factors A22.
func Potrf(n int, a []float64, lda int) bool {
	checkChol(n, a, lda)
	return potrf(n, a, lda)
}

func potrf(n int, a []float64, lda int) bool {
	if n <= potrfLeaf {
		return onLeaf(leafPotf2, n, a, lda)
	}
	n1 := split(n)
	n2 := n - n1
	if !potrf(n1, a, lda) {
		return false
	}
	a21 := a[n1*lda:]
	l11T := triangle{op: operand{data: a, ld: lda, trans: true}}
	trsmRightShared(n2, n1, l11T, a21, lda)
	a22 := a21[n1:]
	gemm(n2, n2, n1, -1, &operand{data: a21, ld: lda}, &operand{data: a21, ld: lda, trans: true}, 1, a22, lda, lower)
	return potrf(n2, a22, lda)
}

// leaf says which unblocked routine a leaf of the recursion runs.
type leaf uint8

const (
	leafPotf2 leaf = iota // gonum's Dpotf2: Cholesky factorisation
	leafTrti2             // trti2: inverse of L
	leafLauu2             // lauu2: LᵀL
)

// onLeaf runs an unblocked routine on the n x n lower triangle of a,
// through a contiguous copy when a is part of a larger matrix: the leaves
// read columns, and on a large power-of-two stride those accesses all map
// to the same few cache sets. It reports Dpotf2's result (true otherwise).
func onLeaf(kind leaf, n int, a []float64, lda int) bool {
	if n == 0 {
		return true
	}
	w := a
	var p *[]float64
	if lda != n {
		p = getBuf(&poolTmp, n*n)
		defer poolTmp.Put(p)
		w = *p
		for i := range n {
			copy(w[i*n:i*n+i+1], a[i*lda:i*lda+i+1])
		}
	}
	ok := true
	switch kind {
	case leafPotf2:
		ok = glapack.Dpotf2(blas.Lower, n, w, n)
	case leafTrti2:
		trti2(n, w, n)
	case leafLauu2:
		lauu2(n, w, n)
	}
	if p != nil {
		for i := range n {
			copy(a[i*lda:i*lda+i+1], w[i*n:i*n+i+1])
		}
	}
	return ok
}

// Potri replaces the Cholesky factor L (lower triangle of a, as left by
// Potrf) with the lower triangle of (L L^T)^{-1}. It returns false if L is
// singular.
//
// It inverts L in place and then forms L^{-T} L^{-1}, both recursively.
func Potri(n int, a []float64, lda int) bool {
	checkChol(n, a, lda)
	for i := range n {
		if a[i*lda+i] == 0 {
			return false
		}
	}
	trtri(n, a, lda)
	lauum(n, a, lda)
	return true
}

// trtri inverts the non-singular lower triangular matrix L in place:
//
//	[L11    ]^{-1}   [L11^{-1}                        ]
//	[L21 L22]      = [-L22^{-1} L21 L11^{-1}  L22^{-1}]
func trtri(n int, a []float64, lda int) {
	if n <= potriLeaf {
		onLeaf(leafTrti2, n, a, lda)
		return
	}
	n1 := split(n)
	n2 := n - n1
	a21 := a[n1*lda:]
	a22 := a21[n1:]
	l11 := triangle{op: operand{data: a, ld: lda}, lower: true}
	l22 := triangle{op: operand{data: a22, ld: lda}, lower: true}
	scale(n2, n1, -1, a21, lda, full)
	trsmRightShared(n2, n1, l11, a21, lda)
	trsmLeft(n2, n1, l22, a21, lda)
	trtri(n1, a, lda)
	trtri(n2, a22, lda)
}

// trti2 is the unblocked inversion of a lower triangular matrix, column by
// column from the last.
func trti2(n int, a []float64, lda int) {
	for j := n - 1; j >= 0; j-- {
		a[j*lda+j] = 1 / a[j*lda+j]
		ajj := -a[j*lda+j]
		// Column j below the diagonal becomes -L(j,j)^{-1} Linv22 L(j+1:, j),
		// Linv22 being the already inverted trailing block; bottom-up keeps
		// the old values that are still needed.
		for i := n - 1; i > j; i-- {
			var s float64
			for k := j + 1; k <= i; k++ {
				s += a[i*lda+k] * a[k*lda+j]
			}
			a[i*lda+j] = ajj * s
		}
	}
}

// lauum overwrites the lower triangular L with the lower triangle of LᵀL:
//
//	[L11    ]ᵀ [L11    ]   [L11ᵀL11 + L21ᵀL21         ]
//	[L21 L22]  [L21 L22] = [L22ᵀL21           L22ᵀL22 ]
func lauum(n int, a []float64, lda int) {
	if n <= potriLeaf {
		onLeaf(leafLauu2, n, a, lda)
		return
	}
	n1 := split(n)
	n2 := n - n1
	a21 := a[n1*lda:]
	a22 := a21[n1:]
	lauum(n1, a, lda)
	gemm(n1, n1, n2, 1, &operand{data: a21, ld: lda, trans: true}, &operand{data: a21, ld: lda}, 1, a, lda, lower)
	l22T := triangle{op: operand{data: a22, ld: lda, trans: true}}
	trmmLeft(n2, n1, l22T, a21, lda)
	lauum(n2, a22, lda)
}

// lauu2 is the unblocked lauum: element (i, j), j <= i, of LᵀL is
// sum_{k>=i} L(k,i) L(k,j); rows are done top-down and each row left to
// right, so every value is read before it is overwritten.
func lauu2(n int, a []float64, lda int) {
	for i := range n {
		for j := 0; j <= i; j++ {
			var s float64
			for k := i; k < n; k++ {
				s += a[k*lda+i] * a[k*lda+j]
			}
			a[i*lda+j] = s
		}
	}
}
