package dense

// axpyRows computes y[j] += sum_{r<len(x)} x[r] * a[r*lda+j] for j < len(y):
// the rows of a weighted by x are added into y. It is the transposed
// matrix-vector product and the inner step of the triangular solves.
func axpyRows(x, a []float64, lda int, y []float64) {
	if useAsm {
		axpyRowsAsm(x, a, lda, y)
		return
	}
	axpyRowsGo(x, a, lda, y)
}

func axpyRowsGo(x, a []float64, lda int, y []float64) {
	for r, w := range x {
		if w == 0 {
			continue
		}
		row := a[r*lda : r*lda+len(y)]
		for j, v := range row {
			y[j] += w * v
		}
	}
}
