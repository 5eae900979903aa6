//go:build amd64

package dense

import "golang.org/x/sys/cpu"

// The AVX-512 assembly needs AVX-512F only (x/sys/cpu also checks that
// the OS saves the AVX-512 registers); without it, a CPU with AVX2 and FMA
// gets the AVX2 micro-kernel (the other kernels stay in Go).
func init() {
	useAsm = cpu.X86.HasAVX512F
	canAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	useAVX2 = canAVX2 && !useAsm
}

// avx2Params carries the scalars and column masks of kernel4x12AVX2 as
// vectors (AVX2 has no broadcast memory operands nor mask registers).
type avx2Params struct {
	alpha [4]float64
	beta  [4]float64
	mask  [12]int64 // -1 for the columns to write
}

//go:noescape
func kernel4x12AVX2(k int, a, b, c *float64, ldc, rows, hasBeta int, p *avx2Params)

// kernelAVX2 computes the 8 x 24 tile as four 4 x 12 quarters.
func kernelAVX2(k int, a, b, c []float64, ldc int, alpha, beta float64, rows, cols int) {
	_ = a[k*mr-1]
	_ = b[k*nr-1]
	_ = c[(rows-1)*ldc+cols-1]
	var p avx2Params
	p.alpha = [4]float64{alpha, alpha, alpha, alpha}
	p.beta = [4]float64{beta, beta, beta, beta}
	hasBeta := 0
	if beta != 0 {
		hasBeta = 1
	}
	for i := 0; i < rows; i += 4 {
		for j := 0; j < cols; j += 12 {
			for l := range p.mask {
				p.mask[l] = 0
				if l < cols-j {
					p.mask[l] = -1
				}
			}
			kernel4x12AVX2(k, &a[i], &b[j], &c[i*ldc+j], ldc, min(4, rows-i), hasBeta, &p)
		}
	}
}

//go:noescape
func kernelAVX512(k int, a, b, c *float64, ldc int, alpha, beta float64, rows, masks int)

// kernelAsm calls the assembly kernel after checking that the slices hold
// the tile, so that a driver bug panics instead of corrupting memory.
func kernelAsm(k int, a, b, c []float64, ldc int, alpha, beta float64, rows, cols int) {
	_ = a[k*mr-1]
	_ = b[k*nr-1]
	_ = c[(rows-1)*ldc+cols-1]
	// One bit per column: the low 24 bits, read 8 per vector.
	masks := 1<<cols - 1
	kernelAVX512(k, &a[0], &b[0], &c[0], ldc, alpha, beta, rows, masks)
}

//go:noescape
func axpyRowsAVX512(n, q int, x, a *float64, lda int, y *float64)

// axpyRowsAsm runs the assembly on the multiple-of-8 head of y and Go on
// the rest.
func axpyRowsAsm(x, a []float64, lda int, y []float64) {
	q, n := len(x), len(y)
	if q == 0 || n == 0 {
		return
	}
	_ = a[(q-1)*lda+n-1]
	head := n &^ 7
	if head > 0 {
		axpyRowsAVX512(head, q, &x[0], &a[0], lda, &y[0])
	}
	if head < n {
		axpyRowsGo(x, a[head:], lda, y[head:])
	}
}

//go:noescape
func dotRowsAVX512(n int, a *float64, lda int, x *float64, acc *[32]float64)

// dotRowsAsm runs the assembly on four rows and the multiple-of-16 head of
// the columns, Go on the rest.
func dotRowsAsm(rows, n int, a []float64, lda int, x []float64, d *[4]float64) {
	head := n &^ 15
	if rows < 4 || head == 0 {
		dotRowsGo(rows, n, a, lda, x, d)
		return
	}
	_ = a[3*lda+n-1]
	_ = x[n-1]
	var acc [32]float64
	dotRowsAVX512(head, &a[0], lda, &x[0], &acc)
	for r := range 4 {
		s := acc[8*r : 8*r+8]
		d[r] = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])) +
			dot(a[r*lda+head:r*lda+n], x[head:n])
	}
}

//go:noescape
func dotAVX512(n int, x, y *float64) float64

// dotAsm returns x·y (equal lengths, at least 8) by the assembly on the
// multiple-of-8 head and Go on the rest.
func dotAsm(x, y []float64) float64 {
	n := len(x)
	y = y[:n]
	head := n &^ 7
	return dotAVX512(head, &x[0], &y[0]) + dot(x[head:], y[head:])
}
