// Package dense holds the dense linear algebra kernels of the SDP solver:
// the Level-3 BLAS routines and Cholesky factorisation that dominate an
// interior-point iteration. The bound propagation (package bounds) takes
// its matrix products from it too, on one goroutine (DgemmSerial).
// Matrices are row-major, as in gonum.
//
// Impl satisfies gonum's blas.Float64; the routines that matter for speed
// are overridden (Dgemm, Dsyrk, Dsyr2k, Dsymm, Dtrsm, Dtrmm, Dgemv, Dsymv,
// Dtrsv, Ddot, Daxpy), the rest come from gonum's pure-Go implementation. The
// overrides keep gonum's semantics: the same results up to rounding, the
// same panics on bad arguments, and, with beta == 0, C is never read. Tiny
// problems and non-unit vector strides are handed to gonum.
//
// Everything is built on one GEMM (gemm.go): operands are packed into
// micro-panels and multiplied by a register-blocked micro-kernel, in
// assembly where the CPU has AVX-512 (kernel_amd64.s) or else AVX2 and FMA
// (kernel_avx2_amd64.s), and in Go elsewhere.
// SYRK and SYR2K restrict it to a triangle of C, SYMM and TRMM pack
// symmetric and triangular operands, and the triangular solves and the
// Cholesky routines recurse down to small leaves so that nearly all their
// work is GEMM. Large products are shared among up to four goroutines,
// each computing its own blocks of C exactly as the serial driver would,
// so that results are bit-identical whatever GOMAXPROCS (par.go). Buffers
// come from pools, so that repeated calls allocate nothing but the
// goroutines of shared products.
package dense

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Impl is the BLAS implementation the solver uses.
type Impl struct {
	gonum.Implementation
}

var _ blas.Float64 = Impl{}
