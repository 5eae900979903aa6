package dense

// smallLevel1 is the vector length under which Ddot and Daxpy call gonum.
const smallLevel1 = 32

// Ddot returns the dot product of x and y, with gonum's conventions.
// Unit-stride vectors of some length use AVX-512 where the CPU has it;
// everything else (and every argument error) goes to gonum.
func (impl Impl) Ddot(n int, x []float64, incX int, y []float64, incY int) float64 {
	if !useAsm || n < smallLevel1 || incX != 1 || incY != 1 || len(x) < n || len(y) < n {
		return impl.Implementation.Ddot(n, x, incX, y, incY)
	}
	return dotAsm(x[:n], y[:n])
}

// Daxpy computes y = alpha * x + y, with gonum's conventions (alpha == 0
// leaves y untouched). Unit-stride vectors of some length use AVX-512 where
// the CPU has it; everything else goes to gonum.
func (impl Impl) Daxpy(n int, alpha float64, x []float64, incX int, y []float64, incY int) {
	if !useAsm || n < smallLevel1 || incX != 1 || incY != 1 || len(x) < n || len(y) < n || alpha == 0 {
		impl.Implementation.Daxpy(n, alpha, x, incX, y, incY)
		return
	}
	w := [1]float64{alpha}
	axpyRowsAsm(w[:], x[:n], 0, y[:n])
}

// dot returns the dot product of x and y[:len(x)].
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// vdot returns x·y[:len(x)] by the fastest kernel for its length.
func vdot(x, y []float64) float64 {
	if useAsm && len(x) >= 16 {
		return dotAsm(x, y[:len(x)])
	}
	return dot(x, y)
}
