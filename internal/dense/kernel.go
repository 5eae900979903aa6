package dense

// The micro-kernel computes one mr x nr tile of C from a packed panel of A
// (mr values per step of the inner dimension) and of B (nr values per step):
//
//	C = alpha * sum_p a[p*mr+i] * b[p*nr+j] + beta * C
//
// where beta == 0 means C is not read, and only the first rows x cols
// elements of the tile are read and written (edge tiles). Rows of the tile
// are rows of the row-major C, so the nr columns are contiguous and form
// the vector lanes.
const (
	mr = 8  // rows of a tile: values of A broadcast one at a time
	nr = 24 // columns of a tile: three 8-lane vectors of B
)

// useAsm says whether the AVX-512 kernels run, and useAVX2 whether the
// AVX2 micro-kernel does instead (canAVX2: the CPU could run it). They are
// set at start-up from the CPU's features (kernel_amd64.go); tests change
// them to check every kernel. Without either (other architectures) the Go
// kernels give correct results but are slower than gonum's own assembly
// (about 5 against 8 GFlop/s for a 512 x 512 Dgemm on the machine where
// this was measured). The kernels are called through plain functions that
// test the flags, not through function values, so that their arguments do
// not escape.
var useAsm, useAVX2, canAVX2 bool

// kernel runs the micro-kernel: the assembly one where the CPU supports
// it, else kernelGo.
func kernel(k int, a, b, c []float64, ldc int, alpha, beta float64, rows, cols int) {
	switch {
	case useAsm:
		kernelAsm(k, a, b, c, ldc, alpha, beta, rows, cols)
	case useAVX2:
		kernelAVX2(k, a, b, c, ldc, alpha, beta, rows, cols)
	default:
		kernelGo(k, a, b, c, ldc, alpha, beta, rows, cols)
	}
}

// kernelGo is the portable micro-kernel.
func kernelGo(k int, a, b, c []float64, ldc int, alpha, beta float64, rows, cols int) {
	var acc [mr * nr]float64
	a = a[:k*mr]
	b = b[:k*nr]
	for p := range k {
		ap := a[p*mr : p*mr+mr]
		bp := b[p*nr : p*nr+nr]
		for i, av := range ap {
			row := acc[i*nr : i*nr+nr]
			for j, bv := range bp {
				row[j] += av * bv
			}
		}
	}
	for i := range rows {
		ci := c[i*ldc : i*ldc+cols]
		row := acc[i*nr : i*nr+cols]
		if beta == 0 {
			for j, v := range row {
				ci[j] = alpha * v
			}
			continue
		}
		for j, v := range row {
			ci[j] = alpha*v + beta*ci[j]
		}
	}
}
