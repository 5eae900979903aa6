package sdp

// SparseVec is a sparse vector inside one block: entry Index[k] (0-based)
// has value Value[k]. Indices need not be sorted but must be distinct.
type SparseVec struct {
	Index []int
	Value []float64
}

// Factor is the rank-one symmetric term
//
//	D * u u^T
//
// placed in block Block (a PSD block). Constraint matrices of nnbound's own
// SDPs are sums of a few such terms; giving them in this form lets the
// solver exploit their low rank instead of expanding them into entries.
type Factor struct {
	Block int
	D     float64
	U     SparseVec
	// Coef, when the block has a Basis (Problem.Bases), gives u in that
	// basis: u = W Coef with W = [e_1 ... e_n v_1 ... v_e], index k < n
	// standing for the unit vector e_{k+1} and n+j for Vecs[j]. It must
	// agree with U to rounding (Validate checks it). Empty means U itself
	// in unit vectors. Without a basis for the block it is ignored.
	Coef SparseVec
}

// Basis is a dictionary shared by the factors of one PSD block: the
// columns of
//
//	W = [e_1 ... e_n  v_1 ... v_e],
//
// the block's unit vectors followed by Vecs. When many factors are
// combinations of a few columns of W each (the products (a^T eta)(b^T
// eta) of a network's quadratic constraints, where a and b mix one
// neuron's output, its pre-activation — a dense row of weights — and the
// constant), the solver may work with W^T X^{-1} W and W^T Y W, of order
// n + e, in place of Gram matrices of all the factors (see lift.go): the
// Schur complement then costs about (n + e)^2 n rather than r^2 n for r
// factors.
type Basis struct {
	Block int
	Vecs  []SparseVec
}
