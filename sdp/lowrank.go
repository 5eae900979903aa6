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
}
