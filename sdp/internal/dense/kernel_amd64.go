//go:build amd64

package dense

import "golang.org/x/sys/cpu"

func init() {
	if cpu.X86.HasAVX512F {
		kernel = kernelAsm
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
