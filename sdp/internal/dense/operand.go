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

// operand is a row-major matrix as a GEMM factor: element (i, j) of op(X),
// where op(X) is X or, if trans, its transpose, and X has the given shape.
type operand struct {
	data  []float64
	ld    int
	trans bool
	shape shape
	unit  bool // triangular with an implicit unit diagonal
}

// at returns element (i, j) of the operand. It is the slow path of packing,
// used only for symmetric and triangular operands.
func (o *operand) at(i, j int) float64 {
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

// sub returns the operand whose element (i, j) is element (i+i0, j+j0) of
// o. For structured shapes the offset must keep the diagonal in place
// (i0 == j0), which is how the blocked routines use it.
func (o operand) sub(i0, j0 int) operand {
	if o.trans {
		i0, j0 = j0, i0
	}
	o.data = o.data[i0*o.ld+j0:]
	return o
}
