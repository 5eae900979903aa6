//go:build !amd64

package dense

// Without assembly kernels useAsm stays false and these are never called.

func kernelAVX2(k int, a, b, c []float64, ldc int, alpha, beta float64, rows, cols int) {
	kernelGo(k, a, b, c, ldc, alpha, beta, rows, cols)
}

func kernelAsm(k int, a, b, c []float64, ldc int, alpha, beta float64, rows, cols int) {
	kernelGo(k, a, b, c, ldc, alpha, beta, rows, cols)
}

func axpyRowsAsm(x, a []float64, lda int, y []float64) { axpyRowsGo(x, a, lda, y) }

func dotRowsAsm(rows, n int, a []float64, lda int, x []float64, d *[4]float64) {
	dotRowsGo(rows, n, a, lda, x, d)
}

func dotAsm(x, y []float64) float64 { return dot(x, y) }
