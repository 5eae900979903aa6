package dense

// shape says which elements of a stored matrix an operand reads.
type shape uint8

const (
	general  shape = iota // every element is stored
	symLower              // symmetric; only the lower triangle is read
	symUpper              // symmetric; only the upper triangle is read
	triLower              // lower triangular; elements above the diagonal are zero
	triUpper              // upper triangular; elements below the diagonal are zero
)

// operand is a row-major matrix X used as a GEMM factor: element (i, j) of
// the operand is element (r+i, c+j) of op(X), where op(X) is X or, if
// trans, its transpose, and X has the given shape.
type operand struct {
	data  []float64
	ld    int
	trans bool
	shape shape
	unit  bool // triangular with an implicit unit diagonal
	r, c  int  // offset of the operand within op(X)
}

// at returns element (i, j) of the operand. It is the slow path of packing,
// used only for symmetric and triangular operands.
func (o *operand) at(i, j int) float64 {
	i, j = i+o.r, j+o.c
	if o.trans {
		i, j = j, i
	}
	switch o.shape {
	case symLower:
		if j > i {
			i, j = j, i
		}
	case symUpper:
		if j < i {
			i, j = j, i
		}
	case triLower:
		if j > i {
			return 0
		}
		if i == j && o.unit {
			return 1
		}
	case triUpper:
		if j < i {
			return 0
		}
		if i == j && o.unit {
			return 1
		}
	}
	return o.data[i*o.ld+j]
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
