//go:build amd64

package dense

import "golang.org/x/sys/cpu"

func init() {
	if cpu.X86.HasAVX512F {
		kernel = kernelAsm
		axpyRows = axpyRowsAsm
	}
}

//go:noescape
func kernelAVX512(k int, a, b, c *float64, ldc int, alpha, beta float64)

// kernelAsm calls the assembly kernel after checking that the slices hold
// the tile, so that a driver bug panics instead of corrupting memory.
func kernelAsm(k int, a, b, c []float64, ldc int, alpha, beta float64) {
	_ = a[k*mr-1]
	_ = b[k*nr-1]
	_ = c[(mr-1)*ldc+nr-1]
	kernelAVX512(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
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
