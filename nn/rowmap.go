package nn

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// RowMap is one dense matrix W (m x k) applied to each of Rows
// consecutive blocks of k values:
//
//	y[r m + j] = sum_i W[j, i] x[r k + i],   r < Rows, j < m,
//
// the map I_Rows ⊗ W held without its zeros. It is MatMul of an
// activation of shape [.., Rows, k] by a constant k x m weight (W is that
// weight transposed): the token-wise linear maps of a transformer, which
// as a dense matrix would hold Rows times too many entries and cost Rows
// times too much to apply.
type RowMap struct {
	W    *mat.Dense
	Rows int
}

// In returns Rows k.
func (m *RowMap) In() int { _, c := m.W.Dims(); return m.Rows * c }

// Out returns Rows m.
func (m *RowMap) Out() int { r, _ := m.W.Dims(); return m.Rows * r }

// Apply sets dst = (I ⊗ W) x.
func (m *RowMap) Apply(dst, x []float64) {
	r, c := m.W.Dims()
	for t := range m.Rows {
		Layer{W: m.W}.MulVec(dst[t*r:(t+1)*r], x[t*c:(t+1)*c])
	}
}

// affineTo sets dst = (I ⊗ W) x + b with Layer.AffineTo's arithmetic (per
// output the bias, then the products in input order), as the dense matrix
// I ⊗ W gives it.
func (m *RowMap) affineTo(dst, x, b []float64) {
	r, c := m.W.Dims()
	for t := range m.Rows {
		Layer{W: m.W, B: b[t*r : (t+1)*r]}.AffineTo(dst[t*r:(t+1)*r], x[t*c:(t+1)*c])
	}
}

// ApplyTransposed sets dst = (I ⊗ W)^T y.
func (m *RowMap) ApplyTransposed(dst, y []float64) {
	r, c := m.W.Dims()
	for t := range m.Rows {
		Layer{W: m.W}.MulTransVec(dst[t*c:(t+1)*c], y[t*r:(t+1)*r])
	}
}

// AbsMap returns the map of |W| on each block.
func (m *RowMap) AbsMap() Linear {
	a := DenseMap{m.W}.AbsMap().(DenseMap)
	return &RowMap{W: a.W, Rows: m.Rows}
}

// Validate reports a missing matrix, no rows or a non-finite weight.
func (m *RowMap) Validate() error {
	if m.W == nil || m.Rows < 1 {
		return fmt.Errorf("nn: row map of %d rows without a matrix: %w", m.Rows, ErrDimension)
	}
	return DenseMap{m.W}.Validate()
}

// Dense returns the matrix I_Rows ⊗ W.
func (m *RowMap) Dense() *mat.Dense {
	r, c := m.W.Dims()
	d := mat.NewDense(m.Rows*r, m.Rows*c, nil)
	for t := range m.Rows {
		d.Slice(t*r, (t+1)*r, t*c, (t+1)*c).(*mat.Dense).Copy(m.W)
	}
	return d
}

// BlockDiagonal returns the RowMap of w when w is I_rows ⊗ W for some W
// (every block off the diagonal zero, the diagonal blocks equal), and
// false otherwise, when rows < 2 or when rows does not divide both sides
// of w.
func BlockDiagonal(w *mat.Dense, rows int) (*RowMap, bool) {
	R, C := w.Dims()
	if rows < 2 || R%rows != 0 || C%rows != 0 {
		return nil, false
	}
	r, c := R/rows, C/rows
	for i := range R {
		t := i / r
		row, first := w.RawRowView(i), w.RawRowView(i-t*r)
		for j, v := range row {
			if j/c != t && v != 0 || j/c == t && v != first[j-t*c] {
				return nil, false
			}
		}
	}
	return &RowMap{W: mat.DenseCopyOf(w.Slice(0, r, 0, c)), Rows: rows}, true
}
