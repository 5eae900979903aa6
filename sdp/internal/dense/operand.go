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

// fillRow sets dst[(j-j0)*stride] to element (i, j) of the operand for j
// in [j0, j1). It is how symmetric and triangular operands are packed:
// each row of op(X) is cut at the diagonal into the part read where it is
// stored, the part reflected from the other triangle (symmetric) or zero
// (triangular), and the diagonal element.
func (o *operand) fillRow(i, j0, j1 int, dst []float64, stride int) {
	I := i + o.r // the row and columns in op(X)
	lo, hi := j0+o.c, j1+o.c
	// Element (I, J) of op(X) is data[direct+J*dStep]; element (J, I) is
	// data[mirror+J*mStep].
	direct, dStep, mirror, mStep := I*o.ld, 1, I, o.ld
	if o.trans {
		direct, dStep, mirror, mStep = mirror, mStep, direct, dStep
	}
	lowerStored := (o.shape == symLower || o.shape == triLower) != o.trans
	sym := o.shape == symLower || o.shape == symUpper
	put := func(from, to, base, step int) { // base < 0: zeros
		for J := from; J < to; J++ {
			v := 0.0
			if base >= 0 {
				v = o.data[base+J*step]
			}
			dst[(J-lo)*stride] = v
		}
	}
	other, oStep := -1, 0 // the unstored part: zero or reflected
	if sym {
		other, oStep = mirror, mStep
	}
	below, above := min(hi, I), max(lo, I+1) // [lo, below) left of the diagonal, [above, hi) right
	if lowerStored {
		put(lo, below, direct, dStep)
		put(above, hi, other, oStep)
	} else {
		put(lo, below, other, oStep)
		put(above, hi, direct, dStep)
	}
	if I >= lo && I < hi {
		v := o.data[direct+I*dStep]
		if o.unit {
			v = 1
		}
		dst[(I-lo)*stride] = v
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
