package dense

// shape says which elements of a stored matrix an operand reads.
type shape uint8

const (
	general  shape = iota // every element is stored
	symLower              // symmetric; only the lower triangle is read
	symUpper              // symmetric; only the upper triangle is read
)

// operand is a row-major matrix X used as a GEMM factor: element (i, j) of
// the operand is element (r+i, c+j) of op(X), where op(X) is X or, if
// trans, its transpose, and X has the given shape.
type operand struct {
	data  []float64
	ld    int
	trans bool
	shape shape
	r, c  int // offset of the operand within op(X)
	// packed, if not nil, holds the whole of op(X), a second operand,
	// already packed (DgemmPacked); r and c are then 0.
	packed *PackedB
}

// fillRow sets dst[(j-j0)*stride] to element (i, j) of the symmetric
// operand for j in [j0, j1). It is how symmetric operands are packed: each
// row is cut at the diagonal into the part read along the stored row and
// the part reflected from the stored column. (A symmetric X equals its
// transpose, so trans does not matter.)
func (o *operand) fillRow(i, j0, j1 int, dst []float64, stride int) {
	I := i + o.r // the row and columns in X
	lo, hi := j0+o.c, j1+o.c
	// Row I of X is stored left of the diagonal (lower) or right of it
	// (upper); the rest of row I is column I, read down the stored rows.
	split := I + 1 // lower: [lo, I] in row I, (I, hi) in column I
	if o.shape == symUpper {
		split = I // upper: [lo, I) in column I, [I, hi) in row I
	}
	for J := lo; J < hi; J++ {
		inRow := J < split
		if o.shape == symUpper {
			inRow = !inRow
		}
		if inRow {
			dst[(J-lo)*stride] = o.data[I*o.ld+J]
		} else {
			dst[(J-lo)*stride] = o.data[J*o.ld+I]
		}
	}
}

// index returns the position in data of element (i, j) of a general
// operand.
func (o *operand) index(i, j int) int {
	i, j = i+o.r, j+o.c
	if o.trans {
		return j*o.ld + i
	}
	return i*o.ld + j
}

// sub returns the operand whose element (i, j) is element (i+r, j+c) of o.
func (o operand) sub(r, c int) operand {
	o.r += r
	o.c += c
	return o
}
