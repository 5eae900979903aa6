package nn

import (
	"fmt"
	"math"
)

// Sparse is a linear map held by rows of non-zero entries (compressed
// sparse rows): row i is W[Start[i]:Start[i+1]] at the columns
// Col[Start[i]:Start[i+1]]. It is ReduceMean, ReduceSum and the sums of a
// MatMul of two computed tensors, whose dense matrices would be mostly
// zeros.
type Sparse struct {
	N     int // number of inputs
	Start []int
	Col   []int
	W     []float64
}

// In returns the number of inputs.
func (s *Sparse) In() int { return s.N }

// Out returns the number of rows.
func (s *Sparse) Out() int { return len(s.Start) - 1 }

// Apply sets dst_i = sum_k W[k] x[Col[k]] over row i's entries, in order.
func (s *Sparse) Apply(dst, x []float64) {
	for i := range dst[:s.Out()] {
		t := 0.0
		for k := s.Start[i]; k < s.Start[i+1]; k++ {
			t += s.W[k] * x[s.Col[k]]
		}
		dst[i] = t
	}
}

// ApplyTransposed sets dst = M^T y.
func (s *Sparse) ApplyTransposed(dst, y []float64) {
	clear(dst[:s.N])
	for i, v := range y[:s.Out()] {
		if v == 0 {
			continue
		}
		for k := s.Start[i]; k < s.Start[i+1]; k++ {
			dst[s.Col[k]] += s.W[k] * v
		}
	}
}

// AbsMap returns the map with entries |W|.
func (s *Sparse) AbsMap() Linear {
	a := &Sparse{N: s.N, Start: s.Start, Col: s.Col, W: make([]float64, len(s.W))}
	for k, w := range s.W {
		a.W[k] = math.Abs(w)
	}
	return a
}

// Validate reports rows out of order, a column outside the input or a
// non-finite entry.
func (s *Sparse) Validate() error {
	if len(s.Start) < 1 || s.Start[0] != 0 || s.Start[len(s.Start)-1] != len(s.W) || len(s.Col) != len(s.W) {
		return fmt.Errorf("nn: sparse map of %d row starts, %d columns and %d entries: %w", len(s.Start), len(s.Col), len(s.W), ErrDimension)
	}
	for i := 1; i < len(s.Start); i++ {
		if s.Start[i] < s.Start[i-1] {
			return fmt.Errorf("nn: sparse map row %d starts before row %d: %w", i, i-1, ErrDimension)
		}
	}
	for k, c := range s.Col {
		if c < 0 || c >= s.N {
			return fmt.Errorf("nn: sparse map entry %d reads column %d of %d: %w", k, c, s.N, ErrDimension)
		}
	}
	return finiteAll("sparse weight", s.W)
}

// clone returns a deep copy of s.
func (s *Sparse) clone() *Sparse {
	return &Sparse{N: s.N, Start: append([]int(nil), s.Start...), Col: append([]int(nil), s.Col...), W: append([]float64(nil), s.W...)}
}
